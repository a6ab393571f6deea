package io.huditsd.api.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The daemon's bearer token and the one check of an {@code Authorization} header against it, shared by the REST API
 * and the admin port so that both accept exactly the same credentials. The comparison takes constant time for
 * tokens of the token's length.
 */
public final class BearerToken {
  /** The {@code WWW-Authenticate} header of a 401. */
  public static final String CHALLENGE = "Bearer realm=\"hudi-tsd\"";

  /** What a request presented, with the status and message to refuse it with. */
  public enum Verdict {
    /** No {@code Authorization: Bearer ...} header. */
    MISSING(401, "A bearer token is required (Authorization: Bearer <token>)"),
    /** A bearer token that is not this one. */
    INVALID(403, "The bearer token is not valid"),
    VALID(200, "");

    private final int status;
    private final String message;

    Verdict(int status, String message) {
      this.status = status;
      this.message = message;
    }

    public int status() {
      return status;
    }

    public String message() {
      return message;
    }
  }

  private static final String PREFIX = "Bearer ";

  private final byte[] token;

  public BearerToken(String token) {
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException("token must not be empty");
    }
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  /** Checks the value of a request's {@code Authorization} header, {@code null} when it had none. */
  public Verdict check(String authorization) {
    if (authorization == null || !authorization.startsWith(PREFIX)) {
      return Verdict.MISSING;
    }
    byte[] presented = authorization.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(presented, token) ? Verdict.VALID : Verdict.INVALID;
  }

  /** Never the token itself: this object may end up in a log line. */
  @Override
  public String toString() {
    return "BearerToken[redacted]";
  }
}
