package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class TestThreadIoStatistics {
  @Test
  void theDaemonsDefaultResourceTurnsThemOff() {
    assertThat(new Configuration().get(ThreadIoStatistics.KEY)).as("Hadoop 3.3.6 leaves it to its code: on").isNull();
    Configuration withResource = new Configuration(false);
    withResource.addResource(ThreadIoStatistics.RESOURCE);

    assertThat(withResource.getBoolean(ThreadIoStatistics.KEY, true)).isFalse();
  }

  @Test
  void aValueFromCoreSiteIsTheUsers() {
    assertThat(ThreadIoStatistics.userSets(new Configuration())).as("Hadoop's default only").isFalse();
    Configuration configuration = new Configuration();
    configuration.addResource(new ByteArrayInputStream("""
        <configuration>
          <property><name>fs.iostatistics.thread.level.enabled</name><value>true</value></property>
        </configuration>""".getBytes(StandardCharsets.UTF_8)), "core-site.xml");

    assertThat(ThreadIoStatistics.userSets(configuration)).isTrue();
  }
}
