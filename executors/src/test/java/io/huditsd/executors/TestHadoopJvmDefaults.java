package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class TestHadoopJvmDefaults {
  @Test
  void theDaemonsResourcesSetItsValues() {
    Configuration defaults = new Configuration(false);
    HadoopJvmDefaults.RESOURCES.values().forEach(defaults::addResource);

    assertThat(defaults.get("fs.file.impl")).isEqualTo(ForklessLocalFileSystem.class.getName());
    assertThat(defaults.getBoolean("fs.iostatistics.thread.level.enabled", true)).isFalse();
  }

  /**
   * What a library's own {@code new Configuration()} gets once they are installed, as in the daemon. (This JVM keeps
   * them afterwards, as the daemon's does: its later tests run on the daemon's local file system.)
   */
  @Test
  void aConfigurationMadeAnywhereAfterInstallOpensLocalPathsWithoutForks() throws IOException {
    HadoopJvmDefaults.install();

    try (FileSystem fileSystem = FileSystem.newInstance(URI.create("file:///"), new Configuration())) {
      assertThat(fileSystem).isInstanceOf(ForklessLocalFileSystem.class);
    }
    assertThat(new Configuration().getBoolean("fs.iostatistics.thread.level.enabled", true)).isFalse();
  }

  @Test
  void hadoopLeavesBothUnsetAndAValueFromCoreSiteIsTheUsers() {
    Configuration plain = new Configuration();
    HadoopJvmDefaults.RESOURCES.keySet().forEach(key ->
        assertThat(HadoopJvmDefaults.userSets(plain, key)).as("%s in Hadoop's defaults", key).isFalse());
    Configuration configuration = new Configuration();
    configuration.addResource(new ByteArrayInputStream("""
        <configuration>
          <property><name>fs.iostatistics.thread.level.enabled</name><value>true</value></property>
        </configuration>""".getBytes(StandardCharsets.UTF_8)), "core-site.xml");

    assertThat(HadoopJvmDefaults.userSets(configuration, "fs.iostatistics.thread.level.enabled")).isTrue();
    assertThat(HadoopJvmDefaults.userSets(configuration, "fs.file.impl")).isFalse();
  }
}
