package io.huditsd.config;

import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.apache.hudi.metadata.MetadataPartitionType;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The metadata indexes the daemon builds on Hudi's Java engine, each a partition of the table's metadata table.
 * Indexes the Java engine cannot build are named in {@link #UNSUPPORTED} with the reason.
 */
public enum MetadataIndexKind {
  COLUMN_STATS(HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS, MetadataPartitionType.COLUMN_STATS),
  BLOOM_FILTERS(HoodieTableMetadataUtil.PARTITION_NAME_BLOOM_FILTERS, MetadataPartitionType.BLOOM_FILTERS),
  RECORD_INDEX(HoodieTableMetadataUtil.PARTITION_NAME_RECORD_INDEX, MetadataPartitionType.RECORD_INDEX),
  PARTITION_STATS(HoodieTableMetadataUtil.PARTITION_NAME_PARTITION_STATS, MetadataPartitionType.PARTITION_STATS);

  /** Index kinds a user may name but the daemon cannot build, with the reason given at config load. */
  public static final Map<String, String> UNSUPPORTED = Map.of(
      "expression_index", "expression indexes cannot be built on Hudi's Java engine (Hudi 1.2.0's Java metadata "
          + "writer has no expression evaluation); build them with Spark SQL CREATE INDEX",
      "secondary_index", "secondary indexes need an index definition that Spark SQL CREATE INDEX writes; hudi-tsd "
          + "does not write index definitions, so it cannot build them",
      "files", "the files partition is the metadata table itself; writers create it with hoodie.metadata.enable=true");

  private final String partitionPath;
  private final MetadataPartitionType partitionType;

  MetadataIndexKind(String partitionPath, MetadataPartitionType partitionType) {
    this.partitionPath = partitionPath;
    this.partitionType = partitionType;
  }

  /** The name in {@code tsd.yml}, the REST API and metrics; also the metadata partition's name. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The partition of the metadata table that holds the index. */
  public String partitionPath() {
    return partitionPath;
  }

  public MetadataPartitionType partitionType() {
    return partitionType;
  }

  public static Optional<MetadataIndexKind> fromConfigName(String name) {
    String wanted = name == null ? "" : name.trim();
    return Arrays.stream(values()).filter(kind -> kind.configName().equalsIgnoreCase(wanted)).findFirst();
  }

  public static Optional<MetadataIndexKind> fromPartitionPath(String partitionPath) {
    return Arrays.stream(values()).filter(kind -> kind.partitionPath.equals(partitionPath)).findFirst();
  }

  public static String allNames() {
    return Arrays.stream(values()).map(MetadataIndexKind::configName).collect(Collectors.joining(", "));
  }
}
