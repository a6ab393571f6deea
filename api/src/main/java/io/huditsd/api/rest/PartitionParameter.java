package io.huditsd.api.rest;

import org.apache.hudi.common.model.HoodiePartitionMetadata;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.storage.StoragePath;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A request parameter that names a partition of a table: a path relative to the table's base path, resolved against
 * it, that must stay inside the table and be one of its partitions. Every parameter that names a path goes through
 * here, so that no request reads outside the table it names (a {@code ../other-table} once listed another table's
 * files, with full paths, to anyone who could reach the port).
 */
final class PartitionParameter {
  /** A URI scheme ({@code file:}, {@code s3a:}) or a drive letter at the start: the value would leave the table. */
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*", Pattern.DOTALL);

  private PartitionParameter() {
  }

  /**
   * The partition {@code value} names, checked; empty when the parameter is absent or blank (no filter: every
   * partition). A non-partitioned table's only partition is {@code ""}, which is the same as no filter.
   *
   * @param name the parameter's name, for the message
   * @param tableId the table's id, for the message
   * @param known partitions known without a storage request (the last poll's), checked first
   * @param metaClient the table, for a partition not known: one created since the last poll is served too
   * @throws ApiException 400 when the value is no relative partition path, 404 when the table has no such partition
   */
  static Optional<String> resolve(String name, String value, String tableId, Collection<String> known,
                                  Supplier<HoodieTableMetaClient> metaClient) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    requireRelative(name, "'" + value + "'", value);
    // Jersey has decoded the query once already; a second decoding must not turn the value into a traversal either.
    String decoded = decodedAgain(value);
    if (!decoded.equals(value)) {
      requireRelative(name, "'" + value + "' (decoded '" + decoded + "')", decoded);
    }
    if (!known.contains(value) && !hasPartitionMetadata(metaClient.get(), value)) {
      throw ApiException.notFound(name + ": table '" + tableId + "' has no partition '" + value + "'");
    }
    return Optional.of(value);
  }

  private static void requireRelative(String name, String shown, String value) {
    String problem = null;
    if (value.indexOf('\\') >= 0) {
      problem = "contains a backslash";
    } else if (value.chars().anyMatch(Character::isISOControl)) {
      problem = "contains a control character";
    } else if (value.startsWith("/")) {
      problem = "is an absolute path";
    } else if (SCHEME.matcher(value).matches()) {
      problem = "names a URI scheme";
    } else {
      for (String segment : value.split("/", -1)) {
        if (segment.equals("..") || segment.equals(".")) {
          problem = "has a '" + segment + "' segment";
          break;
        }
        if (segment.isEmpty()) {
          problem = "has an empty segment";
          break;
        }
      }
    }
    if (problem != null) {
      throw ApiException.badRequest(name + ": " + shown + " " + problem + "; expected a partition path relative to"
          + " the table, as the file-groups rows show it (e.g. 'region=eu/2026-11-01')");
    }
  }

  private static String decodedAgain(String value) {
    try {
      return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      // Not percent-encoded ('%' alone, as Hudi's encoded partition values may hold): nothing to decode.
      return value;
    }
  }

  /** Hudi's own test of a partition folder: its partition metadata file (one to three status calls). */
  private static boolean hasPartitionMetadata(HoodieTableMetaClient metaClient, String partition) {
    return HoodiePartitionMetadata.hasPartitionMetadata(metaClient.getStorage(),
        new StoragePath(metaClient.getBasePath(), partition));
  }
}
