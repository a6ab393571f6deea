package io.huditsd.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a user may put into a {@code hoodie} map. Keys must be Hudi's own or the daemon's engine policy
 * ({@link EnginePolicy}, never passed to Hudi), and the keys the daemon derives from the
 * table itself (its type, version, name, path) or needs fixed for the Java engine may not be overridden: setting
 * them would upgrade a table its writers own, or kill the client at start.
 */
public final class HoodieKeyRules {
  private static final String METADATA_REASON =
      "metadata writes follow the table's own metadata table (hoodie.table.metadata.partitions)";

  private static final String SINGLE_FILE_GROUP = "Hudi 1.2.0's Java engine builds a metadata index correctly only "
      + "with one file group, so the daemon builds each index with one";

  private static final String INGESTION_FIRST = "the daemon's commits always lose a conflict with a writer's "
      + "(see docs/writers.md, \"Ingestion first\"); tune it with hoodie.clustering.plan.strategy.hot.commits"
      + " / .hot.minutes";

  /** Keys the daemon sets itself, with the reason a user may not. */
  public static final Map<String, String> DAEMON_OWNED = Map.ofEntries(
      Map.entry("hoodie.write.table.version", "the daemon pins it to the table's own hoodie.table.version"),
      Map.entry("hoodie.write.auto.upgrade", "the daemon never upgrades a table"),
      Map.entry("hoodie.embed.timeline.server", "the embedded timeline server is not available on the Java engine"),
      Map.entry("hoodie.write.markers.type", "the Java engine needs DIRECT markers"),
      Map.entry("hoodie.base.path", "it comes from the table's path"),
      Map.entry("hoodie.table.name", "it comes from the table's hoodie.properties"),
      Map.entry("hoodie.table.type", "it comes from the table's hoodie.properties"),
      Map.entry("hoodie.table.version", "it comes from the table's hoodie.properties"),
      Map.entry("hoodie.log.compaction.enable", "log compaction cannot run on the Java engine"),
      // A table service committed without updating the table's metadata table leaves it stale: readers that list
      // files from it (Spark's read-optimized queries) return the rows of replaced base files. One the writers do
      // not maintain would be stale from the start. So metadata writes follow hoodie.table.metadata.partitions.
      Map.entry("hoodie.metadata.enable", METADATA_REASON),
      Map.entry("hoodie.metadata.index.column.stats.enable", METADATA_REASON),
      Map.entry("hoodie.metadata.index.partition.stats.enable", METADATA_REASON),
      Map.entry("hoodie.metadata.index.bloom.filter.enable", METADATA_REASON),
      Map.entry("hoodie.metadata.global.record.level.index.enable", METADATA_REASON),
      Map.entry("hoodie.metadata.record.level.index.enable", METADATA_REASON),
      // Indexes the table lacks are built by the daemon's asynchronous indexer, never synchronously by a table service.
      Map.entry("hoodie.metadata.index.async", "the daemon builds missing indexes asynchronously; list them under indexes"),
      Map.entry("hoodie.metadata.index.column.stats.column.list", "set it with indexes.column_stats.columns"),
      Map.entry("hoodie.metadata.index.bloom.filter.file.group.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.index.column.stats.file.group.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.index.partition.stats.file.group.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.global.record.level.index.min.filegroup.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.global.record.level.index.max.filegroup.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.record.index.min.filegroup.count", SINGLE_FILE_GROUP),
      Map.entry("hoodie.metadata.record.index.max.filegroup.count", SINGLE_FILE_GROUP),
      // Ingestion first: with Hudi's own resolution a daemon clustering can commit over file groups a writer just
      // updated (the writer's commit then fails, or with PreferWriter writers its rows are replaced).
      Map.entry("hoodie.write.lock.conflict.resolution.strategy", INGESTION_FIRST),
      Map.entry("hoodie.clustering.fail.on.pending.ingestion.during.conflict.resolution", INGESTION_FIRST),
      Map.entry("hoodie.metadata.streaming.write.enabled",
          "the daemon's metadata-table writer must not roll back a concurrent Spark writer's metadata commit"));

  private static final Set<String> DAEMON_OWNED_KEYS = DAEMON_OWNED.keySet();

  private HoodieKeyRules() {
  }

  /**
   * Problems with the keys of {@code hoodie} and their values, each naming {@code where}, the key and the value.
   * Empty when all is well.
   */
  public static List<String> check(String where, Map<String, String> hoodie) {
    List<String> errors = new ArrayList<>();
    HoodieKeyCatalog catalog = HoodieKeyCatalog.instance();
    for (Map.Entry<String, String> entry : hoodie.entrySet()) {
      String key = entry.getKey();
      if (EnginePolicy.isDaemonKey(key)) {
        // The daemon's own policy keys (tsd.engine...) sit beside Hudi's and are layered the same way.
        EnginePolicy.problem(key, entry.getValue()).ifPresent(problem -> errors.add(where + ": " + problem));
      } else if (!key.startsWith("hoodie.")) {
        errors.add(where + ": key '" + key + "' is not a hoodie.* key; only hoodie.* keys and the daemon's "
            + "tsd.engine keys may be set here");
      } else if (DAEMON_OWNED_KEYS.contains(key)) {
        errors.add(where + ": key '" + key + "' may not be set: " + DAEMON_OWNED.get(key));
      } else if (!catalog.isKnown(key)) {
        errors.add(where + ": key '" + key + "' is not a Hudi configuration key"
            + catalog.closest(key).map(candidate -> " (did you mean " + candidate + "?)").orElse(""));
      } else if (entry.getValue() == null) {
        errors.add(where + ": key '" + key + "' has no value");
      } else {
        String value = entry.getValue();
        // The heartbeat keys describe the writers (WriterHeartbeat); the daemon's plans renew by workers.heartbeat*.
        catalog.valueRule(key).flatMap(rule -> rule.problem(value))
            .or(() -> WriterHeartbeat.problem(key, value)).ifPresent(problem ->
            errors.add(where + ": key '" + key + "' has value '" + value + "', which " + problem));
      }
    }
    return errors;
  }
}
