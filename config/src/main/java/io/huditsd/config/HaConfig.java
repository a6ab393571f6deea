package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Several replicas sharing the tables through ZooKeeper: each table is owned by one live replica at a time, and only
 * its owner polls, schedules and executes it. Without this section one replica owns every table.
 *
 * @param zookeeper the ensemble's connect string, {@code host:port[,host:port...]}
 * @param basePath the znode under which replicas register and claim tables ({@value #BASE_PATH_DEFAULT})
 * @param replicaId this replica's name, unique among the replicas (default {@code hostname-pid})
 * @param sessionTimeout how long a replica may be unreachable before its tables move to others (30s)
 */
public record HaConfig(String zookeeper, String basePath, String replicaId, Duration sessionTimeout) {
  public static final String BASE_PATH_DEFAULT = "/hudi-tsd";
  public static final Duration SESSION_TIMEOUT_DEFAULT = Duration.seconds(30);

  @JsonCreator
  public static HaConfig create(@JsonProperty("zookeeper") String zookeeper,
                                @JsonProperty("basePath") String basePath,
                                @JsonProperty("replicaId") String replicaId,
                                @JsonProperty("sessionTimeout") Duration sessionTimeout) {
    return new HaConfig(zookeeper, basePath == null ? BASE_PATH_DEFAULT : basePath,
        replicaId == null ? defaultReplicaId() : replicaId,
        sessionTimeout == null ? SESSION_TIMEOUT_DEFAULT : sessionTimeout);
  }

  public HaConfig {
    if (zookeeper == null || zookeeper.isBlank()) {
      throw new IllegalArgumentException("zookeeper is required: the ensemble's host:port list");
    }
    Objects.requireNonNull(basePath, "basePath is null");
    if (!basePath.startsWith("/") || basePath.length() < 2 || basePath.endsWith("/")) {
      throw new IllegalArgumentException("basePath must be an absolute znode path like /hudi-tsd, got " + basePath);
    }
    if (replicaId == null || !replicaId.matches("[A-Za-z0-9_.-]{1,128}")) {
      throw new IllegalArgumentException("replicaId must be 1 to 128 letters, digits, '_', '-' or '.', got "
          + replicaId);
    }
    Objects.requireNonNull(sessionTimeout, "sessionTimeout is null");
    if (sessionTimeout.toMilliseconds() < 1_000) {
      throw new IllegalArgumentException("sessionTimeout must be at least 1s, got " + sessionTimeout);
    }
  }

  /** {@code hostname-pid}, with characters other than letters, digits, '_', '-' and '.' replaced by '_'. */
  public static String defaultReplicaId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    String name = (host + "-" + ProcessHandle.current().pid()).replaceAll("[^A-Za-z0-9_.-]", "_");
    return name.length() > 128 ? name.substring(name.length() - 128) : name;
  }
}
