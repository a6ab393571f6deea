package io.huditsd.api.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.errors.ErrorMessage;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.LifeCycle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Jetty's error page for requests it rejects before they reach Jersey (an encoded {@code /} or {@code ..} in the
 * path, {@code %00}, a URI or headers over Jetty's limits), written as the REST API's JSON error body
 * {@code {"code": ..., "message": ...}} instead of Jetty's HTML page, and for every method: Jetty's own handler
 * writes a body only for GET, POST and HEAD, so a rejected DELETE answered an empty 400.
 */
public final class JsonErrorHandler extends ErrorHandler {
  private final ObjectMapper mapper;

  public JsonErrorHandler(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper is null");
  }

  /** Replaces the server's error handler (Dropwizard sets Jetty's HTML one) as the server starts. */
  public static void install(LifecycleEnvironment lifecycle, ObjectMapper mapper) {
    JsonErrorHandler handler = new JsonErrorHandler(mapper);
    lifecycle.addEventListener(new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server) {
          server.setErrorHandler(handler);
        }
      }
    });
  }

  @Override
  public boolean errorPageForMethod(String method) {
    return true;
  }

  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                  Callback callback) throws IOException {
    byte[] body = mapper.writeValueAsBytes(new ErrorMessage(code, describe(code, message, cause)));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** Jetty's reason ("Ambiguous URI path separator"); never an exception's class name. */
  private static String describe(int code, String message, Throwable cause) {
    if (cause instanceof HttpException httpException && httpException.getReason() != null) {
      return httpException.getReason();
    }
    if (message == null || (cause != null && message.equals(cause.toString()))) {
      return HttpStatus.getMessage(code);
    }
    return message;
  }
}
