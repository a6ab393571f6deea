package io.huditsd.executors;

import org.apache.hadoop.fs.ChecksumException;
import org.apache.hudi.avro.model.HoodieCleanMetadata;
import org.apache.hudi.avro.model.HoodieCleanerPlan;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.avro.model.HoodieIndexCommitMetadata;
import org.apache.hudi.avro.model.HoodieIndexPlan;
import org.apache.hudi.avro.model.HoodieRequestedReplaceMetadata;
import org.apache.hudi.avro.model.HoodieRestoreMetadata;
import org.apache.hudi.avro.model.HoodieRollbackMetadata;
import org.apache.hudi.avro.model.HoodieRollbackPlan;
import org.apache.hudi.avro.model.HoodieSavepointMetadata;
import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.model.HoodieReplaceCommitMetadata;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StoragePathInfo;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Checks that the instant files the daemon relies on can be read by Hudi's own deserializers (the table's
 * {@code CommitMetadataSerDe}: JSON commit metadata on timeline layout 1, Avro on layout 2): every completed instant,
 * and the plan of every pending compaction, clustering (or replace), clean, rollback and indexing instant.
 *
 * <p>Hudi 1.2.0 itself reads an empty completed commit as empty metadata, and on a garbled one it logs "Failed to get
 * incremental partitions" and carries on, so a compaction or clean would run over a timeline that Hudi misreads.
 * A completed instant is never empty when Hudi wrote it (every completion writes its metadata), so an empty one is
 * corrupt. Plans are required non-empty as Hudi's own readers require them ({@code readNonEmptyInstantContent}),
 * except a pending replacecommit's, which Hudi writes empty for {@code insert_overwrite} on older tables. Files that
 * Hudi legitimately leaves empty ({@code .requested} of commits and delta commits, most {@code .inflight} files) are
 * not read.
 *
 * <p>Each file is read once per process: verdicts are kept per table by file name, length and modification time, so
 * a poll of a long timeline reads only the files that are new or changed. Only files still listed are remembered.
 */
public final class InstantFileCheck {
  /** How completed instants are read, by action (logcompaction completes as a deltacommit, compaction as a commit). */
  private static final Map<String, Class<?>> COMPLETED = Map.of(
      HoodieTimeline.COMMIT_ACTION, HoodieCommitMetadata.class,
      HoodieTimeline.DELTA_COMMIT_ACTION, HoodieCommitMetadata.class,
      HoodieTimeline.REPLACE_COMMIT_ACTION, HoodieReplaceCommitMetadata.class,
      HoodieTimeline.CLEAN_ACTION, HoodieCleanMetadata.class,
      HoodieTimeline.ROLLBACK_ACTION, HoodieRollbackMetadata.class,
      HoodieTimeline.SAVEPOINT_ACTION, HoodieSavepointMetadata.class,
      HoodieTimeline.RESTORE_ACTION, HoodieRestoreMetadata.class,
      HoodieTimeline.INDEXING_ACTION, HoodieIndexCommitMetadata.class);
  /** How the plans of pending instants are read (from their {@code .requested} file), by action. */
  private static final Map<String, Class<?>> PLANS = Map.of(
      HoodieTimeline.COMPACTION_ACTION, HoodieCompactionPlan.class,
      HoodieTimeline.CLUSTERING_ACTION, HoodieRequestedReplaceMetadata.class,
      HoodieTimeline.REPLACE_COMMIT_ACTION, HoodieRequestedReplaceMetadata.class,
      HoodieTimeline.CLEAN_ACTION, HoodieCleanerPlan.class,
      HoodieTimeline.ROLLBACK_ACTION, HoodieRollbackPlan.class,
      HoodieTimeline.INDEXING_ACTION, HoodieIndexPlan.class);
  /** At most this many files are named in one message; the count of the others follows. */
  private static final int NAMED_PER_MESSAGE = 3;
  /** From this many unread files on, they are read in parallel (on the common pool). */
  private static final int PARALLEL_FROM = 16;

  private final Map<String, Map<String, Verdict>> verdictsByTable = new ConcurrentHashMap<>();
  private final LongAdder filesRead = new LongAdder();

  /**
   * A file's verdict for the length and modification time it had when read.
   *
   * @param problem what is wrong with the file, naming it; empty when Hudi reads it
   */
  private record Verdict(long length, long modificationTime, Optional<String> problem) {
    Verdict {
      Objects.requireNonNull(problem, "problem is null");
    }
  }

  /** A file to read: the instant, what it holds and the class Hudi reads it as. */
  private record Expected(HoodieInstant instant, String kind, Class<?> type, boolean mayBeEmpty) {
  }

  /**
   * Reads the files of the timeline loaded in {@code metaClient} that were not read before (one listing of the
   * timeline folder, plus one read per new or changed file).
   *
   * @throws CorruptInstantException naming the table and each unreadable file, when Hudi cannot read one
   * @throws UncheckedIOException when the timeline folder cannot be listed
   */
  public void verify(HoodieTableMetaClient metaClient) {
    HoodieStorage storage = metaClient.getStorage();
    Map<String, StoragePathInfo> listed = new HashMap<>();
    try {
      for (StoragePathInfo info : storage.listDirectEntries(metaClient.getTimelinePath())) {
        if (info.isFile()) {
          listed.put(info.getPath().getName(), info);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the timeline " + metaClient.getTimelinePath(), e);
    }
    String basePath = metaClient.getBasePath().toString();
    Map<String, Verdict> verdicts = verdictsByTable.computeIfAbsent(basePath, path -> new ConcurrentHashMap<>());
    // Archived or rolled-back files are forgotten, so the cache stays the size of the active timeline.
    verdicts.keySet().retainAll(listed.keySet());
    Map<String, Expected> expected = expectedFiles(metaClient);
    List<Map.Entry<String, Expected>> unread = new ArrayList<>();
    for (Map.Entry<String, Expected> file : expected.entrySet()) {
      StoragePathInfo info = listed.get(file.getKey());
      // Not listed: archived, rolled back or renamed since the timeline was loaded.
      if (info != null && !readAlready(verdicts.get(file.getKey()), info)) {
        unread.add(file);
      }
    }
    // A first poll reads the whole active timeline (a once, a daemon's start): files are read side by side then.
    (unread.size() >= PARALLEL_FROM ? unread.parallelStream() : unread.stream()).forEach(file ->
        read(metaClient, file.getValue(), listed.get(file.getKey()))
            .ifPresent(verdict -> verdicts.put(file.getKey(), verdict)));
    List<String> problems = new ArrayList<>();
    for (String file : expected.keySet()) {
      StoragePathInfo info = listed.get(file);
      Verdict verdict = verdicts.get(file);
      // No verdict: the file changed or went away while it was read; it is read again at the next verify.
      if (info != null && readAlready(verdict, info)) {
        verdict.problem().ifPresent(problems::add);
      }
    }
    if (!problems.isEmpty()) {
      StringBuilder message = new StringBuilder(basePath).append(": corrupt instant file ")
          .append(String.join("; corrupt instant file ", problems.subList(0, Math.min(NAMED_PER_MESSAGE,
              problems.size()))));
      if (problems.size() > NAMED_PER_MESSAGE) {
        message.append("; and ").append(problems.size() - NAMED_PER_MESSAGE).append(" more corrupt instant files");
      }
      message.append(" (the table is not serviced until the file is restored or the instant removed)");
      throw new CorruptInstantException(message.toString());
    }
  }

  private static boolean readAlready(Verdict verdict, StoragePathInfo info) {
    return verdict != null && verdict.length() == info.getLength()
        && verdict.modificationTime() == info.getModificationTime();
  }

  /**
   * Forgets the verdicts of a table no longer serviced (keyed by base path: the runner checks a plan's table by its
   * meta client, which knows no table id). The registry's removal calls this; a check in flight for the table may
   * leave its verdicts once more, at most the size of its active timeline, until the table's next removal.
   */
  public void forget(String basePath) {
    verdictsByTable.remove(Objects.requireNonNull(basePath, "basePath is null"));
  }

  /** The base paths with verdicts kept; for tests and diagnostics. */
  public Set<String> tables() {
    return Set.copyOf(verdictsByTable.keySet());
  }

  /** How many instant files this check has read so far (each new or changed file once). */
  public long filesRead() {
    return filesRead.sum();
  }

  /** The files to read, by file name: completed instants first, then the plans of pending ones. */
  private static Map<String, Expected> expectedFiles(HoodieTableMetaClient metaClient) {
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    Map<String, Expected> files = new LinkedHashMap<>();
    for (HoodieInstant instant : timeline.filterCompletedInstants().getInstants()) {
      Class<?> type = COMPLETED.get(instant.getAction());
      if (type != null) {
        files.put(metaClient.getInstantFileNameGenerator().getFileName(instant),
            new Expected(instant, "completed " + instant.getAction(), type, false));
      }
    }
    for (HoodieInstant instant : timeline.filterInflightsAndRequested().getInstants()) {
      Class<?> type = PLANS.get(instant.getAction());
      if (type != null) {
        HoodieInstant requested = metaClient.getInstantGenerator().createNewInstant(HoodieInstant.State.REQUESTED,
            instant.getAction(), instant.requestedTime());
        boolean replace = instant.getAction().equals(HoodieTimeline.REPLACE_COMMIT_ACTION);
        files.put(metaClient.getInstantFileNameGenerator().getFileName(requested),
            new Expected(requested, instant.getAction() + " plan", type, replace));
      }
    }
    return files;
  }

  /** The verdict on one file; empty when the file changed or went away while it was read (it is read again later). */
  private Optional<Verdict> read(HoodieTableMetaClient metaClient, Expected file, StoragePathInfo info) {
    HoodieStorage storage = metaClient.getStorage();
    byte[] bytes;
    try (InputStream in = storage.open(info.getPath())) {
      bytes = in.readAllBytes();
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (ChecksumException e) {
      // Hadoop's checksummed file systems (file://) keep a .crc beside each file: the bytes are not what was written.
      return Optional.of(new Verdict(info.getLength(), info.getModificationTime(),
          Optional.of(info.getPath() + ": " + file.kind() + " fails its checksum: " + rootCause(e))));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the instant file " + info.getPath(), e);
    } finally {
      filesRead.increment();
    }
    if (bytes.length != info.getLength()) {
      return Optional.empty();
    }
    Optional<String> problem = problem(metaClient, file, bytes).map(what -> info.getPath() + ": " + what);
    if (problem.isPresent() && changedSince(storage, info)) {
      // Where creating a file is not atomic (a local file system), a writer may be writing it right now.
      return Optional.empty();
    }
    return Optional.of(new Verdict(info.getLength(), info.getModificationTime(), problem));
  }

  private static Optional<String> problem(HoodieTableMetaClient metaClient, Expected file, byte[] bytes) {
    if (bytes.length == 0) {
      return file.mayBeEmpty() ? Optional.empty()
          : Optional.of(file.kind() + " is empty (0 bytes); Hudi always writes its " + file.type().getSimpleName());
    }
    try {
      // Hudi's own reader, as in HoodieTimeline.readNonEmptyInstantContent, over the bytes just read.
      metaClient.getTimelineLayout().getCommitMetadataSerDe()
          .deserialize(file.instant(), new ByteArrayInputStream(bytes), () -> false, file.type());
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of(file.kind() + " cannot be read as " + file.type().getSimpleName() + " (" + bytes.length
          + " bytes): " + rootCause(e));
    }
  }

  private static boolean changedSince(HoodieStorage storage, StoragePathInfo info) {
    try {
      StoragePathInfo now = storage.getPathInfo(info.getPath());
      return now.getLength() != info.getLength() || now.getModificationTime() != info.getModificationTime();
    } catch (FileNotFoundException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the status of " + info.getPath(), e);
    }
  }

  /** The innermost cause's type and the first line of its message. */
  private static String rootCause(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : root.getMessage().lines().findFirst().orElse("");
    // Jackson appends where in which source; the file is named already.
    int source = message.indexOf("[Source:");
    if (source > 0) {
      message = message.substring(0, source).replaceFirst("\\s*\\(?(start marker )?at\\s*$", "");
    }
    if (message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    return root.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
  }
}
