package io.huditsd.api;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** bin/tsd's --add-opens and the jar manifest's Add-Opens name the packages {@link JvmOpens} lists, no more. */
class TestJvmOpens {
  @Test
  void theLauncherOpensEveryPackageTheDaemonNeeds() throws IOException {
    String launcher = Files.readString(Path.of("..", "bin", "tsd"));
    Matcher flags = Pattern.compile("--add-opens=java\\.base/(\\S+)=ALL-UNNAMED").matcher(launcher);

    assertThat(flags.results().map(flag -> flag.group(1)).toList())
        .containsExactlyInAnyOrderElementsOf(JvmOpens.PACKAGES);
    assertThat(launcher).contains("\"${opens[@]}\"");
  }

  @Test
  void theJarsManifestOpensTheSamePackagesForJavaJar() throws IOException {
    Matcher entry = Pattern.compile("<Add-Opens>([^<]*)</Add-Opens>").matcher(Files.readString(Path.of("pom.xml")));

    assertThat(entry.find()).as("an Add-Opens manifest entry in api/pom.xml").isTrue();
    assertThat(List.of(entry.group(1).trim().split("\\s+")))
        .containsExactlyInAnyOrderElementsOf(JvmOpens.PACKAGES.stream().map(name -> "java.base/" + name).toList());
  }
}
