package io.huditsd.lock;

import com.amazonaws.services.s3.AmazonS3;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.AWSCredentialProviderList;
import org.apache.hadoop.fs.s3a.Constants;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.S3ClientFactory;
import org.apache.hadoop.util.ReflectionUtils;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * An AWS SDK v1 S3 client to one bucket, built the way Hadoop's S3A connector builds its own (hadoop-aws 3.3.x,
 * {@code S3AFileSystem.bindAWSClient}), so the lock talks to the same store with the same settings as the table's
 * file system: the bucket's per-bucket options ({@code fs.s3a.bucket.NAME.*}) applied over the rest, S3A's
 * credentials provider chain ({@code fs.s3a.aws.credentials.provider}, access and secret keys, web identity),
 * {@code fs.s3a.endpoint}, {@code fs.s3a.endpoint.region}, {@code fs.s3a.path.style.access}, requester pays, and
 * S3A's client factory ({@code fs.s3a.s3.client.factory.impl}) with its connection, proxy, signing and retry
 * settings.
 */
record S3Connection(AmazonS3 s3, AWSCredentialProviderList credentials) implements AutoCloseable {
  S3Connection {
    Objects.requireNonNull(s3, "s3 is null");
    Objects.requireNonNull(credentials, "credentials is null");
  }

  /**
   * The endpoint S3A talks to for {@code bucket} ({@code fs.s3a.endpoint}, per-bucket options applied), or
   * {@code "default"} when none is set (AWS S3 of the configured region): what names the store.
   */
  static String endpoint(String bucket, Configuration configuration) {
    String endpoint = S3AUtils.propagateBucketOptions(configuration, bucket)
        .getTrimmed(Constants.ENDPOINT, Constants.DEFAULT_ENDPOINT);
    return endpoint.isEmpty() ? "default" : endpoint;
  }

  /** A client to {@code bucket} with the S3A settings of {@code configuration}. */
  static S3Connection open(String bucket, Configuration configuration) throws IOException {
    Objects.requireNonNull(bucket, "bucket is null");
    URI bucketUri = URI.create("s3a://" + bucket);
    Configuration conf = S3AUtils.propagateBucketOptions(configuration, bucket);
    AWSCredentialProviderList credentials = S3AUtils.createAWSCredentialProviderSet(bucketUri, conf);
    try {
      // Not withPathUri: hadoop-aws 3.3.4 (Spark 3.5's Hadoop line) lacks it, and writers run this class too.
      S3ClientFactory.S3ClientCreationParameters parameters = new S3ClientFactory.S3ClientCreationParameters()
          .withCredentialSet(credentials)
          .withEndpoint(conf.getTrimmed(Constants.ENDPOINT, Constants.DEFAULT_ENDPOINT))
          .withPathStyleAccess(conf.getBoolean(Constants.PATH_STYLE_ACCESS, false))
          .withRequesterPays(conf.getBoolean(Constants.ALLOW_REQUESTER_PAYS, Constants.DEFAULT_ALLOW_REQUESTER_PAYS))
          .withUserAgentSuffix("hudi-tsd-storage-lock")
          .withRequestHandlers(List.of(new S3RequestCounter()));
      Class<? extends S3ClientFactory> factory = conf.getClass(Constants.S3_CLIENT_FACTORY_IMPL,
          Constants.DEFAULT_S3_CLIENT_FACTORY_IMPL, S3ClientFactory.class);
      AmazonS3 s3 = ReflectionUtils.newInstance(factory, conf).createS3Client(bucketUri, parameters);
      return new S3Connection(s3, credentials);
    } catch (IOException | RuntimeException e) {
      credentials.close();
      throw e;
    }
  }

  @Override
  public void close() {
    s3.shutdown();
    credentials.close();
  }
}
