package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class TestS3aRetryDefaults {
  @Test
  void hadoopsDefaultsGiveWayToTheDaemons() {
    Configuration hadoop = new Configuration();
    assertThat(hadoop.get("fs.s3a.attempts.maximum")).isEqualTo("20");
    assertThat(hadoop.get("fs.s3a.retry.throttle.interval")).isEqualTo("100ms");

    Configuration daemon = HudiTables.defaultHadoopConfiguration();

    assertThat(daemon.get("fs.s3a.attempts.maximum")).isEqualTo("5");
    assertThat(daemon.get("fs.s3a.retry.throttle.limit")).isEqualTo("7");
    assertThat(daemon.get("fs.s3a.retry.throttle.interval")).isEqualTo("500ms");
    assertThat(hadoop.get("fs.s3a.connection.maximum")).isEqualTo("96");
    assertThat(daemon.get("fs.s3a.connection.maximum")).isEqualTo("500");
  }

  @Test
  void whatTheUserSetStays() {
    Configuration configuration = new Configuration();
    configuration.addResource(new ByteArrayInputStream("""
        <configuration>
          <property><name>fs.s3a.attempts.maximum</name><value>12</value></property>
        </configuration>""".getBytes(StandardCharsets.UTF_8)), "core-site.xml");
    configuration.set("fs.s3a.retry.throttle.limit", "3");

    S3aRetryDefaults.apply(configuration);

    assertThat(configuration.get("fs.s3a.attempts.maximum")).isEqualTo("12");
    assertThat(configuration.get("fs.s3a.retry.throttle.limit")).isEqualTo("3");
    assertThat(configuration.get("fs.s3a.retry.throttle.interval")).isEqualTo("500ms");
  }
}
