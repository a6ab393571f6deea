package io.huditsd.lock;

import com.amazonaws.AbortedException;
import com.amazonaws.AmazonClientException;
import com.amazonaws.AmazonServiceException;
import com.amazonaws.AmazonWebServiceRequest;
import com.amazonaws.services.s3.model.GetObjectMetadataRequest;
import com.amazonaws.services.s3.model.GetObjectRequest;
import com.amazonaws.services.s3.model.ObjectMetadata;
import com.amazonaws.services.s3.model.PutObjectRequest;
import com.amazonaws.services.s3.model.PutObjectResult;
import com.amazonaws.services.s3.model.S3Object;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.StorageLockClient;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.config.StorageBasedLockConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Hudi's storage lock on S3 with the AWS SDK v1 that Hadoop's S3A connector (hadoop-aws 3.3.x) brings: the same
 * object, JSON and protocol as Hudi's own {@code org.apache.hudi.aws.transaction.lock.S3StorageLockClient}
 * (apache/hudi, {@code hudi-aws/src/main/java/org/apache/hudi/aws/transaction/lock/S3StorageLockClient.java}, SDK
 * v2, in {@code hudi-aws}, which is not published for Hudi 1.2.x), so that writers using Hudi's client and the
 * daemon exclude each other:
 * <ul>
 *   <li>the object is the lock file's path in its bucket ({@code <base>/.hoodie/.locks/table_lock.json}), whatever
 *   the scheme ({@code s3} and {@code s3a} name the same object);</li>
 *   <li>its content is Hudi's {@link StorageLockData} JSON, written by {@link StorageLockFile#toByteArray};</li>
 *   <li>creating is a PUT with {@code If-None-Match: *}, renewing and releasing a PUT with {@code If-Match:} the ETag
 *   read or written last; the ETag is the lock file's version id; 412 Precondition Failed means another process
 *   wrote it first ({@code ACQUIRED_BY_OTHERS});</li>
 *   <li>errors as Hudi's client classifies them: on reads 404 is {@code NOT_EXISTS}, 409, 429 and 5xx are
 *   {@code UNKNOWN_ERROR}, any other status is thrown; on writes 409 and 5xx are {@code UNKNOWN_ERROR}, errors
 *   without a status (the store unreachable) are thrown when creating and {@code UNKNOWN_ERROR} when renewing or
 *   releasing. One difference: a write answered 429 or 503 (throttled, after the SDK's own retries) is
 *   {@code THROTTLED}, for which Hudi 1.2's provider retries a release with back-off instead of failing it and
 *   leaving the lock to expire;</li>
 *   <li>each request times out after a fifth of the lease ({@code hoodie.write.lock.storage.validity.timeout.secs}),
 *   as Hudi's.</li>
 * </ul>
 *
 * <p>The SDK v1 request classes of hadoop-aws 3.3's line predate S3's conditional writes, so the conditions are
 * sent as request headers.
 */
public final class S3StorageLockClient implements StorageLockClient {
  private static final Logger LOG = LoggerFactory.getLogger(S3StorageLockClient.class);
  private static final Set<String> SCHEMES = Set.of("s3", "s3a");
  private static final int PRECONDITION_FAILED = 412;
  private static final int NOT_FOUND = 404;
  private static final int CONDITIONAL_REQUEST_CONFLICT = 409;
  private static final int TOO_MANY_REQUESTS = 429;
  private static final int SLOW_DOWN = 503;
  private static final int SERVER_ERRORS = 500;

  private final String owner;
  private final String bucket;
  private final String key;
  private final int requestTimeoutMillis;
  private final ConditionalWriteProbe.Store store;
  private final S3Connection connection;

  /** The constructor Hudi's StorageBasedLockProvider calls for a client; Hadoop settings from the class path. */
  public S3StorageLockClient(String owner, String lockFileUri, Properties properties) {
    this(owner, lockFileUri, properties, new Configuration());
  }

  /**
   * @param properties the lock keys (the request timeout is a fifth of the lease)
   * @param hadoop     the S3A settings of the table's file system
   */
  public S3StorageLockClient(String owner, String lockFileUri, Properties properties, Configuration hadoop) {
    this.owner = Objects.requireNonNull(owner, "owner is null");
    Objects.requireNonNull(lockFileUri, "lockFileUri is null");
    Objects.requireNonNull(properties, "properties is null");
    Objects.requireNonNull(hadoop, "hadoop is null");
    String scheme = URI.create(lockFileUri).getScheme();
    if (scheme == null || !SCHEMES.contains(scheme)) {
      throw new IllegalArgumentException("S3 storage lock on " + lockFileUri + ": scheme '" + scheme
          + "' is not S3; supported are s3 and s3a");
    }
    Pair<String, String> bucketAndKey = StorageLockClient.parseBucketAndPath(lockFileUri);
    this.bucket = bucketAndKey.getLeft();
    this.key = bucketAndKey.getRight();
    this.requestTimeoutMillis = (int) TimeUnit.SECONDS.toMillis(validitySeconds(properties) / 5);
    this.store = new ConditionalWriteProbe.Store(S3Connection.endpoint(bucket, hadoop), bucket);
    try {
      this.connection = S3Connection.open(bucket, hadoop);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot build an S3 client for lock file " + lockFileUri + " from the S3A"
          + " settings (fs.s3a.*): " + e.getMessage(), e);
    }
  }

  /**
   * The lease: a string as writers' options set it, or a number (Hudi's client casts the value to Number, which fails
   * on a string).
   */
  static long validitySeconds(Properties properties) {
    Object value = properties.get(StorageBasedLockConfig.VALIDITY_TIMEOUT_SECONDS.key());
    if (value == null) {
      return StorageBasedLockConfig.VALIDITY_TIMEOUT_SECONDS.defaultValue();
    }
    return value instanceof Number number ? number.longValue() : Long.parseLong(value.toString().trim());
  }

  /** The bucket and key of the lock object, {@code bucket/key}. */
  String object() {
    return bucket + "/" + key;
  }

  /** The store (endpoint and bucket) the lock object is in. */
  ConditionalWriteProbe.Store store() {
    return store;
  }

  /**
   * Whether the store honours the conditional writes this lock relies on: the verdict known in this process, else a
   * probe beside the lock object ({@link ConditionalWriteProbe}).
   */
  ConditionalWriteProbe.Result conditionalWrites() {
    String lockFolderKey = key.substring(0, key.lastIndexOf('/') + 1);
    return ConditionalWriteProbe.verdict(store, connection.s3(), lockFolderKey, requestTimeoutMillis);
  }

  private <T extends AmazonWebServiceRequest> T timed(T request) {
    request.setSdkClientExecutionTimeout(requestTimeoutMillis);
    return request;
  }

  @Override
  public Pair<LockGetResult, Option<StorageLockFile>> readCurrentLockFile() {
    try (S3Object object = connection.s3().getObject(timed(new GetObjectRequest(bucket, key)))) {
      byte[] content;
      try (InputStream in = object.getObjectContent()) {
        content = in.readAllBytes();
      }
      String etag = object.getObjectMetadata().getETag();
      return Pair.of(LockGetResult.SUCCESS,
          Option.of(StorageLockFile.createFromStream(new ByteArrayInputStream(content), etag)));
    } catch (AmazonServiceException e) {
      int status = e.getStatusCode();
      if (status == NOT_FOUND) {
        LOG.debug("Owner {}: no lock object {}", owner, object());
        return Pair.of(LockGetResult.NOT_EXISTS, Option.empty());
      }
      if (status == CONDITIONAL_REQUEST_CONFLICT || status == TOO_MANY_REQUESTS || status >= SERVER_ERRORS) {
        LOG.warn("Owner {}: reading lock object {} failed with {} {}", owner, object(), status, e.getErrorCode());
        return Pair.of(LockGetResult.UNKNOWN_ERROR, Option.empty());
      }
      throw e;
    } catch (AbortedException e) {
      // The SDK consumed the thread's interrupt to abort the request; keep it for the caller.
      Thread.currentThread().interrupt();
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException("Failed reading lock object " + object(), e);
    }
  }

  @Override
  public Pair<LockUpsertResult, Option<StorageLockFile>> tryUpsertLockFile(StorageLockData newLockData,
                                                                          Option<StorageLockFile> previousLockFile) {
    boolean creating = previousLockFile.isEmpty();
    byte[] content = StorageLockFile.toByteArray(newLockData);
    ObjectMetadata metadata = new ObjectMetadata();
    metadata.setContentLength(content.length);
    PutObjectRequest request = timed(new PutObjectRequest(bucket, key, new ByteArrayInputStream(content), metadata));
    if (creating) {
      request.putCustomRequestHeader("If-None-Match", "*");
    } else {
      request.putCustomRequestHeader("If-Match", quoted(previousLockFile.get().getVersionId()));
    }
    try {
      PutObjectResult result = connection.s3().putObject(request);
      return Pair.of(LockUpsertResult.SUCCESS, Option.of(new StorageLockFile(newLockData, result.getETag())));
    } catch (AmazonServiceException e) {
      return Pair.of(upsertFailure(e), Option.empty());
    } catch (AmazonClientException e) {
      LOG.warn("Owner {}: writing lock object {} failed: {}", owner, object(), e.toString());
      if (creating) {
        // As Hudi's client: a store that cannot be reached when the lock is first taken is an error to surface.
        throw e;
      }
      return Pair.of(LockUpsertResult.UNKNOWN_ERROR, Option.empty());
    }
  }

  private LockUpsertResult upsertFailure(AmazonServiceException e) {
    int status = e.getStatusCode();
    if (status == PRECONDITION_FAILED) {
      LOG.info("Owner {}: lock object {} was written by another process", owner, object());
      return LockUpsertResult.ACQUIRED_BY_OTHERS;
    }
    if (status == TOO_MANY_REQUESTS || status == SLOW_DOWN) {
      LOG.warn("Owner {}: writing lock object {} was throttled ({} {})", owner, object(), status, e.getErrorCode());
      return LockUpsertResult.THROTTLED;
    }
    if (status == CONDITIONAL_REQUEST_CONFLICT || status >= SERVER_ERRORS) {
      LOG.warn("Owner {}: writing lock object {} failed with {} {}", owner, object(), status, e.getErrorCode());
    } else {
      LOG.error("Owner {}: writing lock object {} failed with {} {}", owner, object(), status, e.getErrorCode(), e);
    }
    return LockUpsertResult.UNKNOWN_ERROR;
  }

  /** The SDK v1 hands out ETags without their quotes; {@code If-Match} takes the quoted entity tag. */
  private static String quoted(String etag) {
    return etag.startsWith("\"") ? etag : "\"" + etag + "\"";
  }

  @Override
  public Option<String> readObject(String filePath, boolean checkExistsFirst) {
    try {
      Pair<String, String> bucketAndKey = StorageLockClient.parseBucketAndPath(filePath);
      if (checkExistsFirst) {
        try {
          connection.s3().getObjectMetadata(timed(new GetObjectMetadataRequest(bucketAndKey.getLeft(),
              bucketAndKey.getRight())));
        } catch (AmazonServiceException e) {
          if (e.getStatusCode() == NOT_FOUND) {
            return Option.empty();
          }
          throw e;
        }
      }
      try (S3Object object = connection.s3().getObject(timed(new GetObjectRequest(bucketAndKey.getLeft(),
          bucketAndKey.getRight())));
           InputStream in = object.getObjectContent()) {
        return Option.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (AmazonServiceException e) {
      if (e.getStatusCode() != NOT_FOUND) {
        LOG.warn("Cannot read {}: {}", filePath, e.toString());
      }
      return Option.empty();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot read {}: {}", filePath, e.toString());
      return Option.empty();
    }
  }

  @Override
  public boolean writeObject(String filePath, String content) {
    try {
      Pair<String, String> bucketAndKey = StorageLockClient.parseBucketAndPath(filePath);
      byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
      ObjectMetadata metadata = new ObjectMetadata();
      metadata.setContentLength(bytes.length);
      connection.s3().putObject(timed(new PutObjectRequest(bucketAndKey.getLeft(), bucketAndKey.getRight(),
          new ByteArrayInputStream(bytes), metadata)));
      return true;
    } catch (RuntimeException e) {
      LOG.warn("Cannot write {}: {}", filePath, e.toString());
      return false;
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
