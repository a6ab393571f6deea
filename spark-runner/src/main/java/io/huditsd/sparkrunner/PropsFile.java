package io.huditsd.sparkrunner;

import org.apache.spark.SparkFiles;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The daemon's write-config keys for the table, as the engine wrote them ({@code Properties.store}). */
final class PropsFile {
  private PropsFile() {
  }

  /**
   * Reads {@code name} as a path if it exists, else as a file shipped with the submission ({@code --files},
   * {@code SparkLauncher.addFile}), which in cluster mode lands in the driver's SparkFiles directory under its file
   * name. Needs a running SparkContext for the second case.
   *
   * @throws PlanRefusedException naming both places when neither holds the file
   */
  static Properties load(String name) {
    Path path = Path.of(name);
    if (!Files.isRegularFile(path)) {
      Path shipped = Path.of(SparkFiles.get(path.getFileName().toString()));
      if (!Files.isRegularFile(shipped)) {
        throw new PlanRefusedException("--props " + name + ": no such file, neither as given nor among the files"
            + " shipped with the application (" + shipped + ")");
      }
      path = shipped;
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path, StandardCharsets.ISO_8859_1)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read --props " + path, e);
    }
    return properties;
  }
}
