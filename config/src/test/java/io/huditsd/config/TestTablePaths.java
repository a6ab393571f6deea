package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TestTablePaths {
  @Test
  void localPathsBecomeFileUris() {
    assertThat(TablePaths.normalize("/data/warehouse/orders")).isEqualTo("file:/data/warehouse/orders");
  }

  @Test
  void trailingSlashesAndDotSegmentsAreRemoved() {
    assertThat(TablePaths.normalize("/data/warehouse/orders/")).isEqualTo("file:/data/warehouse/orders");
    assertThat(TablePaths.normalize("/data/./warehouse/tmp/../orders")).isEqualTo("file:/data/warehouse/orders");
    assertThat(TablePaths.normalize("  /data/warehouse/orders  ")).isEqualTo("file:/data/warehouse/orders");
  }

  @Test
  void relativePathsAreResolvedAgainstTheWorkingDirectory() {
    String workingDirectory = Path.of("").toAbsolutePath().toString();
    assertThat(TablePaths.normalize("tables/orders")).isEqualTo("file:" + workingDirectory + "/tables/orders");
  }

  @Test
  void fileUrisInEveryFormNormalizeAlike() {
    assertThat(TablePaths.normalize("file:///data/warehouse/orders/")).isEqualTo("file:/data/warehouse/orders");
    assertThat(TablePaths.normalize("file:/data/warehouse/orders")).isEqualTo("file:/data/warehouse/orders");
    assertThat(TablePaths.normalize("file:/data/warehouse/x/../orders")).isEqualTo("file:/data/warehouse/orders");
  }

  @Test
  void otherSchemesKeepSchemeAndAuthority() {
    assertThat(TablePaths.normalize("hdfs://nn:8020/warehouse/t1/")).isEqualTo("hdfs://nn:8020/warehouse/t1");
    assertThat(TablePaths.normalize("s3a://bucket/warehouse/x/../t1")).isEqualTo("s3a://bucket/warehouse/t1");
  }

  @Test
  void pathsWithSpacesOrPercentSignsStayLiteralForHadoop() {
    assertThat(TablePaths.normalize("/data/my tables/orders")).isEqualTo("file:/data/my tables/orders");
    assertThat(TablePaths.normalize("file:/data/my tables/x/../orders/")).isEqualTo("file:/data/my tables/orders");
    assertThat(TablePaths.normalize("hdfs://nn/data/100% orders")).isEqualTo("hdfs://nn/data/100% orders");
    // Hadoop's Path (and Hudi's StoragePath) read their argument literally: this is the directory on disk.
    assertThat(new org.apache.hadoop.fs.Path(TablePaths.normalize("/data/my tables/orders")).toUri().getPath())
        .isEqualTo("/data/my tables/orders");
  }

  @Test
  void normalizingIsIdempotent() {
    for (String path : new String[] {"/data/warehouse/orders/", "file:///a/b", "hdfs://nn:8020/w/t1/", "rel/t",
        "/data/my tables/orders", "s3a://bucket/a b/../c"}) {
      String once = TablePaths.normalize(path);
      assertThat(TablePaths.normalize(once)).as(path).isEqualTo(once);
    }
  }

  @Test
  void s3SchemesNameTheSameLocationAndOtherSchemesMustMatch() {
    assertThat(TablePaths.sameLocation("s3://lake/t", "s3a://lake/t")).isTrue();
    assertThat(TablePaths.sameLocation("s3n://lake/t", "s3a://lake/t")).isTrue();
    assertThat(TablePaths.sameLocation("s3a://lake/t", "s3a://lake/t")).isTrue();
    assertThat(TablePaths.sameLocation("s3a://lake/t", "s3a://lake/t2")).isFalse();
    assertThat(TablePaths.sameLocation("s3a://lake/t", "s3a://other/t")).isFalse();
    assertThat(TablePaths.sameLocation("gs://lake/t", "s3a://lake/t")).isFalse();
    assertThat(TablePaths.sameLocation("file:/lake/t", "hdfs://nn/lake/t")).isFalse();
  }
}
