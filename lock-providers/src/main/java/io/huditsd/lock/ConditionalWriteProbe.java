package io.huditsd.lock;

import com.amazonaws.AbortedException;
import com.amazonaws.AmazonClientException;
import com.amazonaws.AmazonServiceException;
import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.model.DeleteObjectRequest;
import com.amazonaws.services.s3.model.ObjectMetadata;
import com.amazonaws.services.s3.model.PutObjectRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Whether an S3-compatible store honours the conditional writes the S3 storage lock relies on ({@code If-None-Match:
 * *} to create, {@code If-Match} to replace). Stores differ: S3 itself honours them only since 2024, and some
 * (S3Proxy 2.6 on its filesystem backend) answer 200 to both whatever the object's state, so two processes that both
 * find the lock free both take it and nothing says so.
 *
 * <p>The probe writes an object of its own beside the lock file ({@code .hoodie/.locks/}), under a name the lock
 * file and Hudi's audit files never take: a create with {@code If-None-Match: *} (must succeed), the same create again
 * (must be refused: 412, or 409 as some stores answer), a write with an {@code If-Match} that names no version of
 * the object (must be refused), then deletes it. The verdict is kept per endpoint and bucket for the life of the
 * process; a probe that failed (the store unreachable, an error status) is no verdict and runs again at the next
 * use.
 */
final class ConditionalWriteProbe {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);
  private static final String PROBE_PREFIX = ".conditional-write-probe-";
  private static final byte[] CONTENT = "hudi-tsd conditional write probe".getBytes(StandardCharsets.UTF_8);
  /** An entity tag no object with {@link #CONTENT} has (S3 ETags of single-part objects are MD5s of the content). */
  private static final String WRONG_ETAG = "\"" + "0".repeat(32) + "\"";
  private static final int PRECONDITION_FAILED = 412;
  private static final int CONDITIONAL_REQUEST_CONFLICT = 409;

  /** The last result per store, decisive or not; only a decisive one is reused. */
  private static final ConcurrentMap<Store, Result> RESULTS = new ConcurrentHashMap<>();

  /** What the store does with conditional writes. */
  enum Verdict {
    HONOURED, IGNORED, UNKNOWN;

    /** The metric label: {@code honoured}, {@code ignored}, {@code unknown}. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A store: an S3 endpoint ({@code "default"} for AWS S3) and one of its buckets. */
  record Store(String endpoint, String bucket) {
    Store {
      Objects.requireNonNull(endpoint, "endpoint is null");
      Objects.requireNonNull(bucket, "bucket is null");
    }

    @Override
    public String toString() {
      return "the store at " + endpoint + " bucket " + bucket;
    }
  }

  /**
   * @param detail for {@link Verdict#IGNORED} which conditions the store ignored and how it answered; for
   *               {@link Verdict#UNKNOWN} why the probe failed; empty for {@link Verdict#HONOURED}
   */
  record Result(Verdict verdict, String detail) {
    Result {
      Objects.requireNonNull(verdict, "verdict is null");
      Objects.requireNonNull(detail, "detail is null");
    }
  }

  private ConditionalWriteProbe() {
  }

  /** The last result per store probed in this process. */
  static Map<Store, Result> results() {
    return Map.copyOf(RESULTS);
  }

  /** The verdict already known for {@code store}, or null when it has not been probed or its last probe failed. */
  static Result known(Store store) {
    Result last = RESULTS.get(store);
    return last == null || last.verdict() == Verdict.UNKNOWN ? null : last;
  }

  /**
   * The verdict for {@code store}: the one known, else a probe under {@code lockFolderKey} (the key of the table's
   * lock folder in the bucket, ending in {@code /}). Two threads may probe one store at once; each writes its own
   * object, and both reach the same verdict.
   */
  static Result verdict(Store store, AmazonS3 s3, String lockFolderKey, int requestTimeoutMillis) {
    Result known = known(store);
    if (known != null) {
      return known;
    }
    Result probed = probe(s3, store.bucket(), lockFolderKey + PROBE_PREFIX + UUID.randomUUID(),
        requestTimeoutMillis);
    RESULTS.put(store, probed);
    switch (probed.verdict()) {
      case HONOURED -> LOG.info("Probed {}: it honours conditional writes (If-None-Match, If-Match), so the S3"
          + " storage lock excludes other processes there", store);
      case IGNORED -> LOG.error("Probed {}: it ignores conditional writes ({}); the S3 storage lock is refused there",
          store, probed.detail());
      case UNKNOWN -> LOG.warn("Cannot tell whether {} honours conditional writes: {}; probing again at the next"
          + " use", store, probed.detail());
    }
    return probed;
  }

  private static Result probe(AmazonS3 s3, String bucket, String key, int requestTimeoutMillis) {
    String object = bucket + "/" + key;
    // Not written when the store refused the first create; written, or perhaps, in every other case.
    boolean written = true;
    try {
      try {
        s3.putObject(put(bucket, key, "If-None-Match", "*", requestTimeoutMillis));
      } catch (AmazonServiceException e) {
        written = false;
        return unknown("the create of probe object " + object + " with If-None-Match: * was answered " + status(e));
      }
      List<String> ignored = new ArrayList<>();
      try {
        s3.putObject(put(bucket, key, "If-None-Match", "*", requestTimeoutMillis));
        ignored.add("it answered 200 to a second create with If-None-Match: *");
      } catch (AmazonServiceException e) {
        if (!refused(e)) {
          return unknown("the second create of probe object " + object + " was answered " + status(e));
        }
      }
      try {
        s3.putObject(put(bucket, key, "If-Match", WRONG_ETAG, requestTimeoutMillis));
        ignored.add("it answered 200 to a write with an If-Match that names no version of the object");
      } catch (AmazonServiceException e) {
        if (!refused(e)) {
          return unknown("the write of probe object " + object + " with a wrong If-Match was answered " + status(e));
        }
      }
      return ignored.isEmpty() ? new Result(Verdict.HONOURED, "")
          : new Result(Verdict.IGNORED, String.join("; ", ignored));
    } catch (AbortedException e) {
      // The SDK consumed the thread's interrupt to abort the request; keep it for the caller.
      Thread.currentThread().interrupt();
      return unknown("interrupted");
    } catch (AmazonClientException e) {
      return unknown(e.toString());
    } finally {
      if (written) {
        delete(s3, bucket, key, requestTimeoutMillis);
      }
    }
  }

  /** Refused as the lock needs it refused: 412, or 409 as some stores answer a condition they check. */
  private static boolean refused(AmazonServiceException e) {
    return e.getStatusCode() == PRECONDITION_FAILED || e.getStatusCode() == CONDITIONAL_REQUEST_CONFLICT;
  }

  private static PutObjectRequest put(String bucket, String key, String header, String value, int timeoutMillis) {
    ObjectMetadata metadata = new ObjectMetadata();
    metadata.setContentLength(CONTENT.length);
    PutObjectRequest request = new PutObjectRequest(bucket, key, new ByteArrayInputStream(CONTENT), metadata);
    request.putCustomRequestHeader(header, value);
    request.setSdkClientExecutionTimeout(timeoutMillis);
    return request;
  }

  private static void delete(AmazonS3 s3, String bucket, String key, int timeoutMillis) {
    try {
      DeleteObjectRequest request = new DeleteObjectRequest(bucket, key);
      request.setSdkClientExecutionTimeout(timeoutMillis);
      s3.deleteObject(request);
    } catch (AbortedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Interrupted deleting the conditional-write probe object {}/{}; it is left in place", bucket, key);
    } catch (AmazonClientException e) {
      // Harmless beside the lock (its name is never the lock file's), but worth removing by hand.
      LOG.warn("Cannot delete the conditional-write probe object {}/{}: {}", bucket, key, e.toString());
    }
  }

  private static String status(AmazonServiceException e) {
    return e.getStatusCode() + " " + e.getErrorCode();
  }

  private static Result unknown(String why) {
    return new Result(Verdict.UNKNOWN, why);
  }
}
