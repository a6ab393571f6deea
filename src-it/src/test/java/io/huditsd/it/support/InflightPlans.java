package io.huditsd.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A table's inflight plan, found from the listing of its timeline folder alone: cheap enough to poll every few
 * milliseconds for the moment a process under test is in the middle of writing a plan (to kill or stop it there).
 */
public final class InflightPlans {
  /** The ending of an inflight compaction's timeline file. */
  public static final String COMPACTION = ".compaction.inflight";
  /** The ending of an inflight clustering's timeline file. */
  public static final String CLUSTERING = ".clustering.inflight";

  private InflightPlans() {
  }

  /** The instant of a plan whose timeline file ends {@code inflightSuffix}, if there is one. */
  public static Optional<String> inflight(Path basePath, String inflightSuffix) throws IOException {
    Path timeline = basePath.resolve(".hoodie/timeline");
    if (!Files.isDirectory(timeline)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(timeline)) {
      return files.map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(inflightSuffix) && !name.startsWith("."))
          .map(name -> name.substring(0, name.indexOf('.')))
          .findFirst();
    }
  }

  /** The instant of such a plan that has started writing base files, if there is one. */
  public static Optional<String> writingFiles(Path basePath, String inflightSuffix) throws IOException {
    return inflight(basePath, inflightSuffix).filter(instant -> !DataFiles.writtenBy(basePath, instant).isEmpty());
  }
}
