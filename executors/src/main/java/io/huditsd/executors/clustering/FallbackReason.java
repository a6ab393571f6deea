package io.huditsd.executors.clustering;

import java.util.Locale;

/**
 * Why a clustering group cannot be binary-copied and is rewritten record by record instead. The names are the
 * {@code reason} label of {@code tsd_clustering_binary_copy_fallbacks_total}.
 */
public enum FallbackReason {
  /** A file slice has log files (MOR): its rows are the merge of base and logs, which only a rewrite produces. */
  LOG_FILES,
  /** A file slice has no base file, or one that is not Parquet, or a bootstrap base file. */
  NOT_PARQUET_BASE_FILE,
  /** The plan sorts by columns: copied row groups keep their order. */
  SORT_COLUMNS,
  /** The plan does not preserve Hudi's meta columns (commit time, sequence number), which a copy keeps. */
  METADATA_NOT_PRESERVED,
  /**
   * The table has a secondary or expression index, which a commit updates from the records it wrote: a copy decodes
   * none. (The record index is updated from the written files' keys, which Hudi reads itself, so it does not count.)
   */
  SECONDARY_OR_EXPRESSION_INDEX,
  /** The group's file slices are in more than one partition. */
  MULTIPLE_PARTITIONS,
  /** The files' schemas differ other than by optional columns that some files lack. */
  SCHEMA_MISMATCH,
  /** The files' Hudi bloom filters are of different types, or some files have one and others not. */
  BLOOM_FILTER_MISMATCH,
  /** A base file could not be read as Parquet. */
  UNREADABLE_FOOTER,
  /**
   * A base file has encrypted columns (Parquet modular encryption): their pages and indexes can only be moved with
   * the keys' metadata, which the copy does not write.
   */
  ENCRYPTED;

  /** The label value: lower case, as Prometheus labels usually are. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
