package io.huditsd.executors;

import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.storage.StoragePathInfo;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A Hudi heartbeat ({@code .hoodie/.heartbeat/<instant>}) kept for a plan while this process executes it, for the
 * services whose execution Hudi does not heartbeat itself (clustering, indexing, clean): that is how another
 * process, or this daemon after a restart, tells a running plan from an abandoned one (see {@link PlanLiveness}).
 * A clean keeps one for every pending clean its run executes. Closing stops them and deletes their files; closing
 * twice is harmless.
 */
final class PlanHeartbeat implements AutoCloseable {
  private final HoodieHeartbeatClient client;
  private final List<String> instants;

  private PlanHeartbeat(HoodieHeartbeatClient client, List<String> instants) {
    this.client = client;
    this.instants = List.copyOf(instants);
  }

  /** The instants whose heartbeats this keeps. */
  List<String> instants() {
    return instants;
  }

  /**
   * Starts the heartbeat of a pending clustering plan under the table lock, unless another process holds a live
   * heartbeat of it or it is no longer pending. Two processes that both found the plan requested (overlapping
   * {@code once} runs) would otherwise both execute it: Hudi checks the heartbeat of a compaction under the lock
   * ({@code BaseHoodieTableServiceClient.validateHeartBeat}) but not of a clustering. Whoever starts the heartbeat
   * under the lock first executes the plan; the other run is skipped.
   */
  static PlanHeartbeat claimClustering(HoodieWriteConfig config, HoodieTableMetaClient metaClient, String instant) {
    return TableLock.underTableLock(config, metaClient, current -> {
      if (!ClusteringUtils.getPendingClusteringInstantTimes(current).stream()
          .anyMatch(pending -> pending.requestedTime().equals(instant))) {
        throw new PlanSkippedException("plan " + instant + " is no longer pending (completed or rolled back "
            + "elsewhere; checked under the table lock)");
      }
      // The file's time, not Hudi's HoodieHeartbeatClient.isHeartbeatExpired, which logs a warning ("Heartbeat
      // expired") for the plan every run claims: one nobody started, whose missing file reads as written at 0.
      if (System.currentTimeMillis() - PlanLiveness.lastHeartbeatMillis(current, instant) <= expiryMillis(config)) {
        throw new PlanSkippedException("plan " + instant + " is being executed by another process (its "
            + "heartbeat is alive; checked under the table lock)");
      }
      return start(current.getStorage(), config, instant);
    });
  }

  /** Hudi's expiry of a heartbeat: as many intervals as may be missed ({@code HoodieHeartbeatClient}'s). */
  private static long expiryMillis(HoodieWriteConfig config) {
    return (long) config.getHoodieClientHeartbeatIntervalInMs() * config.getHoodieClientHeartbeatTolerableMisses();
  }

  /**
   * Starts heartbeats of every pending clean under the table lock, unless a live process holds the heartbeat of any
   * clean on the timeline, pending or completed. Hudi's cleaner, asked to clean, first executes every pending clean
   * ({@code CleanActionExecutor}), whoever planned it: two overlapping runs would execute the same clean plan at
   * once, and the later fails creating the {@code .clean.inflight} the other created. A completed clean still counts
   * while its heartbeat lives: the run holding it may be executing a clean planned after its claim, which its
   * cleaner found pending. Whoever claims first executes every pending clean; the other run is skipped.
   *
   * <p>A writer's inline clean keeps no heartbeat and is not seen here; Hudi itself tolerates that race only when
   * the other run completed first.
   */
  static PlanHeartbeat claimCleans(HoodieWriteConfig config, HoodieTableMetaClient metaClient) {
    return TableLock.underTableLock(config, metaClient, current -> {
      List<HoodieInstant> cleans = current.getActiveTimeline().getCleanerTimeline().getInstants();
      List<String> pending = cleans.stream().filter(instant -> !instant.isCompleted())
          .map(HoodieInstant::requestedTime).distinct().toList();
      if (pending.isEmpty()) {
        throw new PlanSkippedException("no clean is pending (completed elsewhere; checked under the table lock)");
      }
      liveHeartbeat(current, cleans.stream().map(HoodieInstant::requestedTime).collect(Collectors.toSet()),
          expiryMillis(config)).ifPresent(held -> {
            throw new PlanSkippedException("clean " + held + " is being executed by another process (its heartbeat "
                + "is alive; checked under the table lock), which executes every pending clean " + pending);
          });
      HoodieHeartbeatClient client = newClient(current.getStorage(), config);
      PlanHeartbeat heartbeat = new PlanHeartbeat(client, pending);
      try {
        pending.forEach(client::start);
      } catch (RuntimeException e) {
        heartbeat.close();
        throw e;
      }
      return heartbeat;
    });
  }

  /**
   * The first of {@code instants} with a heartbeat written within {@code expiryMillis}, from one listing of the
   * heartbeat folder (a completed clean rarely has a heartbeat file; reading one per clean would cost a request
   * each on an object store).
   */
  private static Optional<String> liveHeartbeat(HoodieTableMetaClient metaClient, Set<String> instants,
                                                long expiryMillis) {
    StoragePath folder = new StoragePath(HoodieTableMetaClient.getHeartbeatFolderPath(
        metaClient.getBasePath().toString()));
    List<StoragePathInfo> heartbeats;
    try {
      heartbeats = metaClient.getStorage().listDirectEntries(folder);
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the heartbeats in " + folder, e);
    }
    long now = System.currentTimeMillis();
    return heartbeats.stream()
        .filter(info -> instants.contains(info.getPath().getName()))
        .filter(info -> now - info.getModificationTime() <= expiryMillis)
        .map(info -> info.getPath().getName())
        .findFirst();
  }

  static PlanHeartbeat start(HoodieStorage storage, HoodieWriteConfig config, String instant) {
    HoodieHeartbeatClient client = newClient(storage, config);
    try {
      client.start(instant);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    return new PlanHeartbeat(client, List.of(instant));
  }

  private static HoodieHeartbeatClient newClient(HoodieStorage storage, HoodieWriteConfig config) {
    return new HoodieHeartbeatClient(storage, config.getBasePath(), config.getHoodieClientHeartbeatIntervalInMs(),
        config.getHoodieClientHeartbeatTolerableMisses());
  }

  @Override
  public void close() {
    try {
      // Stopping also deletes the heartbeat file; a second stop, or one of a heartbeat never started, does nothing.
      // A loop, not forEach(client::stop): stop returns Hudi's package-private Heartbeat, which a method reference
      // cannot link to.
      for (String instant : instants) {
        client.stop(instant);
      }
    } finally {
      client.close();
    }
  }
}
