package io.huditsd.api.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The key Hudi writers send with their commit callbacks ({@code HUDI-CALLBACK-KEY}, from
 * {@code hoodie.write.commit.callback.http.api.key}), and the one check of a request against it. Both sides are
 * hashed before the comparison, so it takes the same time whatever the presented key's length or content.
 */
public final class CallbackKey {
  /** The header Hudi's {@code HoodieWriteCommitHttpCallbackClient} sends the key in. */
  public static final String HEADER = "HUDI-CALLBACK-KEY";
  /**
   * Hudi's default for {@code hoodie.write.commit.callback.http.api.key}: public, so a writer that forgot to set a
   * key would be accepted by anyone's daemon; refused as the daemon's key.
   */
  public static final String HUDI_DEFAULT_KEY = "hudi_write_commit_http_callback";

  /** What a request presented. */
  public enum Verdict {
    MISSING(401, "The commit callback key is required (header " + HEADER + ", from the writer's "
        + "hoodie.write.commit.callback.http.api.key)"),
    INVALID(403, "The commit callback key is not valid"),
    VALID(202, "");

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

  private final byte[] digest;

  public CallbackKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("the commit callback key must not be empty");
    }
    if (key.equals(HUDI_DEFAULT_KEY)) {
      throw new IllegalArgumentException("the commit callback key must not be Hudi's public default ("
          + HUDI_DEFAULT_KEY + "): set a secret one here and in the writers' "
          + "hoodie.write.commit.callback.http.api.key");
    }
    this.digest = sha256(key);
  }

  /** Checks the value of a request's {@value #HEADER} header, {@code null} when it had none. */
  public Verdict check(String presented) {
    if (presented == null || presented.isEmpty()) {
      return Verdict.MISSING;
    }
    return MessageDigest.isEqual(sha256(presented), digest) ? Verdict.VALID : Verdict.INVALID;
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Never the key itself: this object may end up in a log line. */
  @Override
  public String toString() {
    return "CallbackKey[redacted]";
  }
}
