package io.huditsd.executors.clustering;

/** Values of Parquet's writer that a row-group copy does not use but the writer's constructor asks for. */
final class ParquetWriterDefaults {
  /** Row groups are copied whole, so the writer's row-group size only sizes its alignment padding (none here). */
  static final long ROW_GROUP_SIZE = 128L * 1024 * 1024;

  private ParquetWriterDefaults() {
  }
}
