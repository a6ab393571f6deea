package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.rest.RunView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The run history's file: one JSON line per finished run, appended in the order runs finished, and rewritten to the
 * last {@code capacity} runs once it holds twice as many. All file I/O after {@link #open} happens on one writer
 * thread, {@code tsd-run-history}, which alone touches the file and the fields below. A history that cannot be
 * written is logged, never fatal.
 */
final class RunHistoryFile {
  private static final Logger LOG = LoggerFactory.getLogger(RunHistoryFile.class);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final Path path;
  private final ObjectMapper mapper;
  private final int capacity;
  private final List<RunView> loaded;
  private final ExecutorService writer = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "tsd-run-history");
    thread.setDaemon(true);
    return thread;
  });
  // Confined to the writer thread once open returned: the file's line count and its newest runs, oldest first.
  private int linesInFile;
  private final Deque<RunView> inFile = new ArrayDeque<>();

  private RunHistoryFile(Path path, ObjectMapper mapper, int capacity) {
    this.path = Objects.requireNonNull(path, "path is null");
    this.mapper = Objects.requireNonNull(mapper, "mapper is null");
    this.capacity = capacity;
    this.loaded = List.copyOf(load());
  }

  /** Reads the runs the file holds (at most the last {@code capacity}); unreadable lines are skipped. */
  static RunHistoryFile open(Path path, ObjectMapper mapper, int capacity) {
    return new RunHistoryFile(path, mapper, capacity);
  }

  /** The runs read at open, oldest first. */
  List<RunView> loaded() {
    return loaded;
  }

  /** Queues {@code view} for the writer thread; never blocks. */
  void append(RunView view) {
    try {
      writer.execute(() -> write(view));
    } catch (RejectedExecutionException e) {
      LOG.warn("Run history {} is closed; run {} is not written to it", path, view.runId());
    }
  }

  /** Writes what is queued, then stops the writer thread. */
  void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(CLOSE_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        LOG.warn("Run history {} still not written after {}s; the last runs may be missing from it", path,
            CLOSE_WAIT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private List<RunView> load() {
    List<RunView> views = new ArrayList<>();
    if (!Files.exists(path)) {
      return views;
    }
    try {
      List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
      linesInFile = lines.size();
      int skipped = 0;
      for (String line : lines.subList(Math.max(0, lines.size() - capacity), lines.size())) {
        try {
          views.add(mapper.readValue(line, RunView.class));
        } catch (IOException e) {
          skipped++;
        }
      }
      inFile.addAll(views);
      LOG.info("Run history: {} runs read from {}{}", views.size(), path,
          skipped > 0 ? " (" + skipped + " unreadable lines skipped)" : "");
    } catch (IOException e) {
      LOG.warn("Run history {} cannot be read, starting empty: {}", path, e.getMessage());
    }
    return views;
  }

  /** Runs on the writer thread only. */
  private void write(RunView view) {
    inFile.addLast(view);
    while (inFile.size() > capacity) {
      inFile.removeFirst();
    }
    try {
      if (path.getParent() != null) {
        Files.createDirectories(path.getParent());
      }
      if (linesInFile + 1 > 2 * capacity) {
        rewrite();
        return;
      }
      try (BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND)) {
        out.write(mapper.writeValueAsString(view));
        out.newLine();
      }
      linesInFile++;
    } catch (IOException e) {
      LOG.warn("Run history {} cannot be written: {}", path, e.getMessage());
    }
  }

  /** Writes the newest runs (at most {@code capacity}, the one just finished included) over the file. */
  private void rewrite() throws IOException {
    Path temporary = path.resolveSibling(path.getFileName() + ".tmp");
    try (BufferedWriter out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
      linesInFile = 0;
      for (RunView run : inFile) {
        out.write(mapper.writeValueAsString(run));
        out.newLine();
        linesInFile++;
      }
    }
    Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
