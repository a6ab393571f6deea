package io.huditsd.executors.clustering;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;

import java.io.IOException;

/**
 * Parquet files written by Parquet's Avro writer for the tests of what a copy moves: pages of 100 rows (many pages a
 * chunk, so offset indexes of many locations), row groups of a few hundred rows, a dictionary-encoded column, an
 * optional one and a bloom filter on the key.
 */
final class PagedSources {
  static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "row", "fields": [
        {"name": "key", "type": "string"},
        {"name": "amount", "type": "long"},
        {"name": "region", "type": "string"},
        {"name": "note", "type": ["null", "string"], "default": null}]}""");

  private PagedSources() {
  }

  /** Writes {@code count} rows, keys {@link #key}({@code first}) on, to {@code path}. */
  static Path write(Path path, int first, int count, Configuration conf) throws IOException {
    try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(
            HadoopOutputFile.fromPath(path, conf))
        .withSchema(SCHEMA).withConf(conf).withCompressionCodec(CompressionCodecName.GZIP)
        .withPageRowCountLimit(100).withRowGroupSize(8 * 1024).withDictionaryEncoding(true)
        .withBloomFilterEnabled("key", true).build()) {
      for (int i = first; i < first + count; i++) {
        GenericRecord row = new GenericData.Record(SCHEMA);
        row.put("key", key(i));
        row.put("amount", (long) i * 7 % 1000);
        row.put("region", i % 3 == 0 ? "eu" : "us");
        row.put("note", i % 5 == 0 ? "note " + i : null);
        writer.write(row);
      }
    }
    return path;
  }

  /** The key of the {@code i}th row. */
  static String key(int i) {
    return String.format("key-%06d", i);
  }
}
