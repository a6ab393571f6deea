package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile and the chart agree (user, ports, command), and the image's entrypoint, the launcher in the
 * layout the Dockerfile copies it into, starts the daemon with HADOOP_CONF_DIR on the class path and without
 * trying to build. No Docker engine is needed: the layout is rebuilt in a directory and java is a stand-in that
 * prints its arguments.
 */
class TestContainerImage {
  private static final Path HOME = HelmChart.directory().resolve("../..").normalize();

  @Test
  void theChartRunsTheImageAsItIsBuilt() throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    JsonNode values = HelmChart.YAML.readTree(HelmChart.directory().resolve("values.yaml").toFile());
    assertThat(dockerfile.last("USER")).isEqualTo(values.path("podSecurityContext").path("runAsUser").asText() + ":"
        + values.path("podSecurityContext").path("runAsGroup").asText());
    assertThat(dockerfile.last("EXPOSE")).isEqualTo(values.path("ports").path("api").asText() + " "
        + values.path("ports").path("admin").asText());
    JsonNode container = HelmChart.render(HelmChart.example("minimal.yaml")).daemonContainer();
    assertThat(dockerfile.last("CMD")).isEqualTo(container.path("args").toString().replace(",", ", "));
    assertThat(dockerfile.last("ENTRYPOINT")).isEqualTo("[\"/opt/hudi-tsd/bin/tsd\"]");
    // The build stage builds what bin/tsd builds, and the runtime stage copies what it produces.
    assertThat(dockerfile.all("RUN")).anyMatch(run -> run.contains("mvn -B -ntp -DskipTests package -pl api -am"));
    assertThat(dockerfile.copies()).containsEntry("/src/api/target/hudi-tsd.jar",
        "/opt/hudi-tsd/api/target/hudi-tsd.jar").containsEntry("/src/api/target/lib/", "/opt/hudi-tsd/api/target/lib/")
        .containsEntry("bin/tsd", "/opt/hudi-tsd/bin/tsd");
  }

  @Test
  void theEntrypointStartsTheDaemonWithHadoopConfigurationOnTheClassPath(@TempDir Path root) throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    for (Map.Entry<String, String> copy : dockerfile.copies().entrySet()) {
      Path target = root.resolve(copy.getValue().substring(1));
      if (copy.getKey().endsWith("/")) {
        Files.createDirectories(target);
      } else if (copy.getKey().equals("bin/tsd")) {
        Files.createDirectories(target.getParent());
        Files.copy(HOME.resolve("bin/tsd"), target);
      } else {
        Files.createDirectories(target.getParent());
        Files.writeString(target, "a jar");
      }
    }
    Path fakeBin = Files.createDirectories(root.resolve("fake-bin"));
    Path java = fakeBin.resolve("java");
    Files.writeString(java, "#!/bin/sh\nfor argument in \"$@\"; do echo \"$argument\"; done\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

    Path entrypoint = root.resolve("opt/hudi-tsd/bin/tsd");
    List<String> command = new ArrayList<>(List.of("bash", entrypoint.toString()));
    command.addAll(List.of("server", "/etc/tsd/tsd.yml"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().clear();
    // No mvn on the path: a launcher that thought it had to build would fail.
    builder.environment().put("PATH", fakeBin + ":/usr/bin:/bin");
    builder.environment().put("HADOOP_CONF_DIR", "/etc/hadoop/conf");
    builder.environment().put("TSD_JAVA_OPTS", "-XX:MaxRAMPercentage=70.0 -XX:+ExitOnOutOfMemoryError");
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    List<String> arguments = output.lines().toList();
    assertThat(arguments).containsSequence("-XX:MaxRAMPercentage=70.0", "-XX:+ExitOnOutOfMemoryError");
    assertThat(arguments).containsSequence("-cp",
        "/etc/hadoop/conf:" + root.resolve("opt/hudi-tsd/api/target/hudi-tsd.jar"));
    assertThat(arguments).endsWith("io.huditsd.api.TsdApplication", "server", "/etc/tsd/tsd.yml");
  }

  /** The instructions of a Dockerfile, continuation lines joined. */
  private record Dockerfile(List<String[]> instructions) {
    static Dockerfile read(Path path) throws Exception {
      List<String[]> instructions = new ArrayList<>();
      StringBuilder current = new StringBuilder();
      for (String line : Files.readAllLines(path)) {
        if (line.isBlank() || line.stripLeading().startsWith("#")) {
          continue;
        }
        current.append(line.strip());
        if (line.endsWith("\\")) {
          current.setLength(current.length() - 1);
          current.append(' ');
          continue;
        }
        String[] parts = current.toString().split("\\s+", 2);
        instructions.add(new String[] {parts[0], parts.length > 1 ? parts[1] : ""});
        current.setLength(0);
      }
      return new Dockerfile(instructions);
    }

    List<String> all(String instruction) {
      return instructions.stream().filter(parts -> parts[0].equals(instruction)).map(parts -> parts[1]).toList();
    }

    String last(String instruction) {
      List<String> all = all(instruction);
      assertThat(all).as("%s instructions", instruction).isNotEmpty();
      return all.get(all.size() - 1);
    }

    /** Sources and targets of the runtime stage's COPY instructions. */
    Map<String, String> copies() {
      List<String> stages = all("FROM");
      Map<String, String> copies = new LinkedHashMap<>();
      int from = 0;
      for (String[] parts : instructions) {
        if (parts[0].equals("FROM")) {
          from++;
          continue;
        }
        if (from == stages.size() && parts[0].equals("COPY")) {
          String[] words = parts[1].replace("--from=build ", "").split("\\s+");
          copies.put(words[0], words[1]);
        }
      }
      return copies;
    }
  }
}
