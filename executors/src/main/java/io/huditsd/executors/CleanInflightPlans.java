package io.huditsd.executors;

import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.HoodieTableVersion;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.InstantFileNameGenerator;
import org.apache.hudi.common.table.timeline.InstantGenerator;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.storage.StoragePathInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code <instant>.clean.inflight} files of a table below version 8, written as its own writers write them.
 *
 * <p>Hudi 0.14 and 0.15 (table version 6) copy the cleaner plan into {@code .clean.inflight} when a clean starts, and
 * their archiver reads it back as a plan ({@code MetadataConversionUtils.createMetaWrapper} calls
 * {@code CleanerUtils.getCleanerPlan} on the inflight file's bytes). Hudi 1.2.0 writing a version-6 timeline leaves that
 * file empty ({@code ActiveTimelineV1.transitionCleanRequestedToInflight} takes no plan): once such a clean is old
 * enough to be archived, every commit of a 0.15 writer fails after its data lands ("Failed to archive commits", caused
 * by "Not an Avro data file"). So on such tables the daemon starts each clean itself, writing the plan into the
 * inflight file ({@link #startWithPlans}), and rewrites any empty inflight file its runs left behind, in the table's
 * timeline and in its metadata table's, where Hudi's metadata writer runs cleans of its own ({@link #repair}). Tables
 * of version 8 and later keep no such file and are left alone.
 */
public final class CleanInflightPlans {
  private static final Logger LOG = LoggerFactory.getLogger(CleanInflightPlans.class);
  private static final String REQUESTED_SUFFIX = ".clean.requested";
  private static final String INFLIGHT_SUFFIX = ".clean.inflight";

  private CleanInflightPlans() {
  }

  /** Whether the table's writers read the cleaner plan from {@code .clean.inflight} (table version below 8). */
  public static boolean apply(HoodieTableMetaClient metaClient) {
    return metaClient.getTableConfig().getTableVersion().lesserThan(HoodieTableVersion.EIGHT);
  }

  /**
   * Moves every requested clean of the table to inflight as Hudi 0.14/0.15 do, with the plan's bytes in the inflight
   * file; Hudi's cleaner then executes them as pending inflight cleans. Only for tables where {@link #apply} holds; the
   * caller owns the cleans (it holds their heartbeats), so no other run starts them meanwhile.
   *
   * @return the instants started
   */
  static List<String> startWithPlans(HoodieTableMetaClient metaClient) {
    if (!apply(metaClient)) {
      return List.of();
    }
    InstantGenerator instants = metaClient.getInstantGenerator();
    InstantFileNameGenerator names = metaClient.getInstantFileNameGenerator();
    HoodieStorage storage = metaClient.getStorage();
    List<String> started = new ArrayList<>();
    for (HoodieInstant requested : metaClient.reloadActiveTimeline().getCleanerTimeline().filterPendingExcludingCompaction()
        .getInstants()) {
      if (!requested.isRequested()) {
        continue;
      }
      HoodieInstant inflight = instants.getCleanInflightInstant(requested.requestedTime());
      StoragePath requestedFile = new StoragePath(metaClient.getTimelinePath(), names.getFileName(requested));
      StoragePath inflightFile = new StoragePath(metaClient.getTimelinePath(), names.getFileName(inflight));
      byte[] plan = read(storage, requestedFile);
      // Created as Hudi creates instant files (never over an existing one): a second starter fails here.
      storage.createImmutableFileInPath(inflightFile, Option.of(out -> out.write(plan)));
      started.add(requested.requestedTime());
    }
    if (!started.isEmpty()) {
      LOG.info("Started cleans {} of table={} with their plans in .clean.inflight, as writers of table version {} "
          + "expect", started, metaClient.getBasePath(), metaClient.getTableConfig().getTableVersion().versionCode());
    }
    return started;
  }

  /**
   * Rewrites every empty {@code .clean.inflight} of the table's timeline and its metadata table's timeline with the
   * bytes of its {@code .clean.requested} (what 0.14/0.15 would have written). Costs one listing per timeline; writes
   * only where a file is empty. Only for tables where {@link #apply} holds.
   *
   * @return the inflight files rewritten
   */
  public static List<StoragePath> repair(HoodieTableMetaClient metaClient) {
    if (!apply(metaClient)) {
      return List.of();
    }
    HoodieStorage storage = metaClient.getStorage();
    List<StoragePath> repaired = new ArrayList<>(repair(storage, metaClient.getTimelinePath()));
    // The metadata table of a version-6 table is version 6 too; its timeline is a plain .hoodie folder.
    StoragePath metadataTimeline = new StoragePath(new StoragePath(metaClient.getMetaPath(), "metadata"), ".hoodie");
    repaired.addAll(repair(storage, metadataTimeline));
    return repaired;
  }

  /** An empty inflight file and the non-empty requested plan beside it. */
  private record EmptyInflight(StoragePath inflight, StoragePath requested) {
  }

  /** The empty inflight files of one timeline folder whose requested plan is there, from one listing. */
  private static List<EmptyInflight> emptyInflights(HoodieStorage storage, StoragePath timeline) {
    Map<String, StoragePathInfo> files = list(storage, timeline);
    List<EmptyInflight> empty = new ArrayList<>();
    for (StoragePathInfo info : files.values()) {
      String name = info.getPath().getName();
      if (name.endsWith(INFLIGHT_SUFFIX) && info.getLength() == 0) {
        StoragePathInfo requested =
            files.get(name.substring(0, name.length() - INFLIGHT_SUFFIX.length()) + REQUESTED_SUFFIX);
        if (requested != null && requested.getLength() > 0) {
          empty.add(new EmptyInflight(info.getPath(), requested.getPath()));
        }
      }
    }
    return empty;
  }

  private static List<StoragePath> repair(HoodieStorage storage, StoragePath timeline) {
    List<StoragePath> repaired = new ArrayList<>();
    for (EmptyInflight empty : emptyInflights(storage, timeline)) {
      StoragePath inflight = empty.inflight();
      StoragePath requested = empty.requested();
      byte[] plan = read(storage, requested);
      // One PUT on an object store; on a file system a truncate and write of a few KB, where a reader in between
      // sees the empty file it sees now.
      try (OutputStream out = storage.create(inflight, true)) {
        out.write(plan);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write the cleaner plan into " + inflight, e);
      }
      LOG.info("Wrote the cleaner plan of {} into its empty {} ({} bytes): writers of table version 6 read it when "
          + "they archive that clean", requested.getName(), inflight, plan.length);
      repaired.add(inflight);
    }
    return repaired;
  }

  private static Map<String, StoragePathInfo> list(HoodieStorage storage, StoragePath timeline) {
    try {
      Map<String, StoragePathInfo> files = new HashMap<>();
      for (StoragePathInfo info : storage.listDirectEntries(timeline)) {
        if (info.isFile()) {
          files.put(info.getPath().getName(), info);
        }
      }
      return files;
    } catch (FileNotFoundException e) {
      return Map.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the timeline " + timeline, e);
    }
  }

  private static byte[] read(HoodieStorage storage, StoragePath file) {
    try (InputStream in = storage.open(file)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
