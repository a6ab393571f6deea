package io.huditsd.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.rest.RunView;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.spark.SparkApplications;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The most recent finished runs, newest first, bounded in size. With a file, each finished run is also written to
 * it (see {@link RunHistoryFile}) and the file is read back at start, so the history survives a restart.
 *
 * <p>The pool tells the history of runs under its own lock ({@link RunListener}): here a run is only remembered in
 * memory and handed to the file's writer thread, so a slow or stalled disk never holds up the pool, its workers or
 * a REST snapshot. {@link #close()} writes what is still waiting.
 */
public final class RunHistory implements RunListener, AutoCloseable {
  private final int capacity;
  private final Optional<RunHistoryFile> file;
  private final SparkApplications sparkApplications;
  // Guarded by this; only in-memory work happens under it.
  private final Deque<RunView> finished = new ArrayDeque<>();

  public RunHistory(int capacity, Optional<Path> file, ObjectMapper mapper) {
    this(capacity, file, mapper, new SparkApplications());
  }

  /** @param sparkApplications where a finished Spark run's application id and state are looked up */
  public RunHistory(int capacity, Optional<Path> file, ObjectMapper mapper, SparkApplications sparkApplications) {
    Objects.requireNonNull(file, "file is null");
    this.sparkApplications = Objects.requireNonNull(sparkApplications, "sparkApplications is null");
    Objects.requireNonNull(mapper, "mapper is null");
    this.capacity = capacity;
    // The history file outlives the daemon's version: a field a later version dropped must not lose the runs.
    ObjectMapper tolerant = mapper.copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    this.file = file.map(path -> RunHistoryFile.open(path, tolerant, capacity));
    this.file.ifPresent(history -> history.loaded().forEach(this::remember));
  }

  @Override
  public void onChange(RunRecord record) {
    if (!record.status().isFinal()) {
      return;
    }
    RunView view = RunView.of(record, sparkApplications);
    synchronized (this) {
      remember(view);
    }
    file.ifPresent(history -> history.append(view));
  }

  public synchronized List<RunView> recent() {
    return new ArrayList<>(finished);
  }

  /** Writes the runs still waiting for the file, then stops its writer thread. */
  @Override
  public void close() {
    file.ifPresent(RunHistoryFile::close);
  }

  private synchronized void remember(RunView view) {
    finished.addFirst(view);
    while (finished.size() > capacity) {
      finished.removeLast();
    }
  }
}
