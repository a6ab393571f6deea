package io.huditsd.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.rest.RunView;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The most recent finished runs, newest first, bounded in size. With a file, each finished run is appended as a
 * JSON line and the file is read back at start, so the history survives a restart; the file is rewritten to the
 * last {@code capacity} runs once it holds twice as many. A history that cannot be written is logged, never fatal.
 */
public final class RunHistory implements RunListener {
  private static final Logger LOG = LoggerFactory.getLogger(RunHistory.class);

  private final int capacity;
  private final Optional<Path> file;
  private final ObjectMapper mapper;
  private final Deque<RunView> finished = new ArrayDeque<>();
  private int linesInFile;

  public RunHistory(int capacity, Optional<Path> file, ObjectMapper mapper) {
    this.capacity = capacity;
    this.file = file;
    // The history file outlives the daemon's version: a field a later version dropped must not lose the runs.
    this.mapper = mapper.copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    file.ifPresent(this::load);
  }

  @Override
  public synchronized void onChange(RunRecord record) {
    if (!record.status().isFinal()) {
      return;
    }
    RunView view = RunView.of(record);
    remember(view);
    file.ifPresent(path -> persist(path, view));
  }

  public synchronized List<RunView> recent() {
    return new ArrayList<>(finished);
  }

  private void remember(RunView view) {
    finished.addFirst(view);
    while (finished.size() > capacity) {
      finished.removeLast();
    }
  }

  private void load(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try {
      List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
      linesInFile = lines.size();
      int skipped = 0;
      for (String line : lines.subList(Math.max(0, lines.size() - capacity), lines.size())) {
        try {
          remember(mapper.readValue(line, RunView.class));
        } catch (IOException e) {
          skipped++;
        }
      }
      LOG.info("Run history: {} runs read from {}{}", finished.size(), path,
          skipped > 0 ? " (" + skipped + " unreadable lines skipped)" : "");
    } catch (IOException e) {
      LOG.warn("Run history {} cannot be read, starting empty: {}", path, e.getMessage());
    }
  }

  private void persist(Path path, RunView view) {
    try {
      if (path.getParent() != null) {
        Files.createDirectories(path.getParent());
      }
      if (linesInFile + 1 > 2 * capacity) {
        rewrite(path);
        return;
      }
      try (BufferedWriter writer = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND)) {
        writer.write(mapper.writeValueAsString(view));
        writer.newLine();
      }
      linesInFile++;
    } catch (IOException e) {
      LOG.warn("Run history {} cannot be written: {}", path, e.getMessage());
    }
  }

  /** Writes the runs held in memory (at most {@code capacity}, the newest included) over the file. */
  private void rewrite(Path path) throws IOException {
    Path temporary = path.resolveSibling(path.getFileName() + ".tmp");
    Iterator<RunView> oldestFirst = finished.descendingIterator();
    try (BufferedWriter writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
      linesInFile = 0;
      while (oldestFirst.hasNext()) {
        writer.write(mapper.writeValueAsString(oldestFirst.next()));
        writer.newLine();
        linesInFile++;
      }
    }
    Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
