package io.huditsd.executors.clustering;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.crypto.ColumnEncryptionProperties;
import org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** Pass one on plain Parquet files: what it copies, and a source it must leave to the rewrite. */
class TestGroupLayout {
  private static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "row", "fields": [
        {"name": "key", "type": "string"},
        {"name": "amount", "type": "long"}]}""");

  private final Configuration conf = new Configuration();
  private final ExecutorService footerReaders = Executors.newFixedThreadPool(2);

  @TempDir
  java.nio.file.Path directory;

  @AfterEach
  void stop() {
    footerReaders.shutdownNow();
  }

  /**
   * Parquet's modular encryption binds a column's pages and indexes to their place in the file, and the copy writes
   * no encryption metadata: a file with an encrypted column (its footer plaintext, so readable without keys) sends
   * the group to the rewrite, while the same files unencrypted are copied.
   */
  @Test
  void aFileWithEncryptedColumnsSendsTheGroupToTheRewrite() throws IOException {
    Path plain = write("plain.parquet", null);
    Path otherPlain = write("other.parquet", null);
    assertThat(new GroupLayout(conf, Long.MAX_VALUE, footerReaders).plan(List.of(plain, otherPlain)))
        .isInstanceOf(GroupLayout.Layout.class);

    byte[] footerKey = "0123456789012345".getBytes(StandardCharsets.US_ASCII);
    byte[] columnKey = "1234567890123450".getBytes(StandardCharsets.US_ASCII);
    FileEncryptionProperties encryption = FileEncryptionProperties.builder(footerKey)
        .withEncryptedColumns(Map.of(ColumnPath.get("amount"),
            ColumnEncryptionProperties.builder("amount").withKey(columnKey).build()))
        .withPlaintextFooter().build();
    Path encrypted = write("encrypted.parquet", encryption);

    GroupLayout.Result result = new GroupLayout(conf, Long.MAX_VALUE, footerReaders)
        .plan(List.of(plain, encrypted));
    assertThat(result).isInstanceOf(GroupLayout.Ineligible.class);
    GroupLayout.Ineligible ineligible = (GroupLayout.Ineligible) result;
    assertThat(ineligible.reason()).isEqualTo(FallbackReason.ENCRYPTED);
    assertThat(ineligible.detail()).contains("encrypted.parquet");
  }

  private Path write(String name, FileEncryptionProperties encryption) throws IOException {
    Path path = new Path(directory.resolve(name).toUri());
    try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(
            HadoopOutputFile.fromPath(path, conf))
        .withSchema(SCHEMA).withConf(conf).withEncryption(encryption).build()) {
      for (int i = 0; i < 50; i++) {
        GenericRecord row = new GenericData.Record(SCHEMA);
        row.put("key", "key-" + i);
        row.put("amount", (long) i);
        writer.write(row);
      }
    }
    return path;
  }
}
