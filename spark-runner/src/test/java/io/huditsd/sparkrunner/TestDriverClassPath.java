package io.huditsd.sparkrunner;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A lock provider that only the application's loader has (as --jars gives it) is refused with the fix. */
class TestDriverClassPath {
  private static final String SUBMITTED = "example.locks.SubmittedLockProvider";

  @TempDir
  Path directory;

  @Test
  void refusesAClassThatOnlyTheSubmissionsJarsHold() throws Exception {
    Properties keys = new Properties();
    keys.setProperty("hoodie.write.lock.provider", SUBMITTED);
    keys.setProperty("hoodie.table.name", "orders");

    assertThatThrownBy(() -> DriverClassPath.requireLoadableByHudi(keys, loaderWith(SUBMITTED)))
        .isInstanceOf(PlanRefusedException.class)
        .hasMessageStartingWith("Hudi cannot load [hoodie.write.lock.provider=" + SUBMITTED + "]")
        .hasMessageContaining("spark.driver.extraClassPath");
  }

  @Test
  void acceptsClassesOfHudisLoaderAndLeavesUnknownNamesAndOtherValuesAlone() throws Exception {
    Properties keys = new Properties();
    keys.setProperty("hoodie.write.lock.provider",
        "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider");
    keys.setProperty("hoodie.write.lock.conflict.resolution.strategy", "com.example.Missing");
    // A host name looks like a class name; the key says it is none.
    keys.setProperty("hoodie.write.lock.zookeeper.url", SUBMITTED);

    assertThatCode(() -> DriverClassPath.requireLoadableByHudi(keys, loaderWith(SUBMITTED)))
        .doesNotThrowAnyException();
  }

  private ClassLoader loaderWith(String name) throws Exception {
    Path source = directory.resolve("src").resolve(name.replace('.', '/') + ".java");
    Files.createDirectories(source.getParent());
    String simpleName = name.substring(name.lastIndexOf('.') + 1);
    Files.writeString(source, "package " + name.substring(0, name.lastIndexOf('.')) + "; public class " + simpleName
        + " {}");
    Path classes = Files.createDirectories(directory.resolve("classes"));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertThat(compiler.run(null, null, null, "-d", classes.toString(), source.toString())).isZero();
    return new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
  }
}
