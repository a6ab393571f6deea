package io.huditsd.api.rest;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies over a limit with 413: at once when Content-Length says so, and while reading a chunked
 * body once it passes the limit.
 */
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodySizeFilter implements ContainerRequestFilter {
  private final long maxBytes;
  private final String largePathPrefix;
  private final long largeMaxBytes;

  public BodySizeFilter(long maxBytes) {
    this(maxBytes, "v1/hoodie/commit-callback", CommitCallbackResource.MAX_BODY_BYTES);
  }

  /**
   * @param largePathPrefix requests to paths starting with this (relative to the application's root) may send up to
   *     {@code largeMaxBytes}: Hudi's commit callbacks carry a write stat per file written and are streamed
   */
  BodySizeFilter(long maxBytes, String largePathPrefix, long largeMaxBytes) {
    this.maxBytes = maxBytes;
    this.largePathPrefix = largePathPrefix;
    this.largeMaxBytes = largeMaxBytes;
  }

  /** Oversized bodies up to this size are read and dropped before the 413 is sent; larger ones close the connection. */
  private static final long DRAIN_LIMIT = 1 << 20;

  @Override
  public void filter(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath();
    long maxBytes = path.startsWith(largePathPrefix) || path.startsWith("/" + largePathPrefix)
        ? Math.max(this.maxBytes, largeMaxBytes) : this.maxBytes;
    if (request.getLength() > maxBytes) {
      // Answering while the body is still arriving makes Jetty close the connection with unread bytes in it, and the
      // client can then see a reset instead of the 413. Read what it sends first, up to a bound.
      boolean drained = request.getLength() <= DRAIN_LIMIT && drain(request.getEntityStream());
      Response response = tooLarge(maxBytes);
      request.abortWith(drained ? response : Response.fromResponse(response).header("Connection", "close").build());
      return;
    }
    if (request.hasEntity()) {
      request.setEntityStream(new LimitedInputStream(request.getEntityStream(), maxBytes));
    }
  }

  private static boolean drain(InputStream body) {
    byte[] buffer = new byte[8192];
    long total = 0;
    try {
      for (int read = body.read(buffer); read >= 0; read = body.read(buffer)) {
        total += read;
        if (total > DRAIN_LIMIT) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Response tooLarge(long maxBytes) {
    return Response.status(413).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new ErrorMessage(413, "Request body is larger than " + maxBytes + " bytes")).build();
  }

  private static final class LimitedInputStream extends FilterInputStream {
    private final long limit;
    private long remaining;

    private LimitedInputStream(InputStream in, long limit) {
      super(in);
      this.limit = limit;
      this.remaining = limit;
    }

    @Override
    public int read() throws IOException {
      int value = super.read();
      if (value >= 0) {
        count(1);
      }
      return value;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int read = super.read(buffer, offset, length);
      if (read > 0) {
        count(read);
      }
      return read;
    }

    private void count(long bytes) {
      remaining -= bytes;
      if (remaining < 0) {
        throw new WebApplicationException(tooLarge(limit));
      }
    }
  }
}
