package io.huditsd.scheduler;

import io.huditsd.executors.HudiTables;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;

/**
 * The real local file system, with a fault injected around the listings of chosen directories: a directory removed
 * right after its parent was listed (as {@code rm -rf} during a scan does), or a listing that fails (as a throttled
 * or timed-out object-store LIST does). Not a fake of discovery: discovery walks real directories through it.
 */
final class FaultInjectingFileSystem extends LocalFileSystem {
  /** What to do around the listing of {@code directory}. */
  @FunctionalInterface
  interface Fault {
    void at(Path directory) throws IOException;
  }

  private volatile Fault beforeListing = directory -> {
  };
  private volatile Fault afterListing = directory -> {
  };

  static FaultInjectingFileSystem create() {
    FaultInjectingFileSystem fileSystem = new FaultInjectingFileSystem();
    try {
      fileSystem.initialize(URI.create("file:///"), HudiTables.defaultHadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return fileSystem;
  }

  /** Runs {@code fault} before each listing (a failure thrown there fails the listing). */
  void beforeListing(Fault fault) {
    beforeListing = fault;
  }

  /** Runs {@code fault} after each listing, before the caller sees its result. */
  void afterListing(Fault fault) {
    afterListing = fault;
  }

  void heal() {
    beforeListing(directory -> {
    });
    afterListing(directory -> {
    });
  }

  @Override
  public FileStatus[] listStatus(Path directory) throws IOException {
    beforeListing.at(directory);
    FileStatus[] children = super.listStatus(directory);
    afterListing.at(directory);
    return children;
  }
}
