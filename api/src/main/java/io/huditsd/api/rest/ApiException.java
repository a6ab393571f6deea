package io.huditsd.api.rest;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** An HTTP error with a JSON body {@code {"code": ..., "message": ...}} that names what was wrong. */
public final class ApiException extends WebApplicationException {
  private static final long serialVersionUID = 1L;

  private ApiException(int status, String message) {
    super(message, Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new ErrorMessage(status, message)).build());
  }

  public static ApiException badRequest(String message) {
    return new ApiException(400, message);
  }

  public static ApiException notFound(String message) {
    return new ApiException(404, message);
  }

  /** 405: the resource exists, but this method is refused on it; {@code allow} lists the methods that work. */
  public static ApiException methodNotAllowed(String message, String allow) {
    return new ApiException(Response.status(405).type(MediaType.APPLICATION_JSON_TYPE).header("Allow", allow)
        .entity(new ErrorMessage(405, message)).build());
  }

  private ApiException(Response response) {
    super(((ErrorMessage) response.getEntity()).getMessage(), response);
  }

  /** An error of another status, e.g. 401/403 of a credential other than the bearer token. */
  public static ApiException status(int status, String message) {
    return new ApiException(status, message);
  }

  public static ApiException conflict(String message) {
    return new ApiException(409, message);
  }
}
