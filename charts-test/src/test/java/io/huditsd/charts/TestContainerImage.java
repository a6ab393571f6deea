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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile and the chart agree (user, ports, command; with WITH_SPARK=true the SPARK_HOME and the jars the
 * spark section defaults to), and the image's entrypoint, the launcher in the layout the Dockerfile copies it into,
 * starts the daemon with HADOOP_CONF_DIR on the class path and without trying to build. No Docker engine is needed:
 * the Dockerfile's stages are followed as docker build resolves them, the layout is rebuilt in a directory and java
 * is a stand-in that prints its arguments.
 */
class TestContainerImage {
  private static final Path HOME = HelmChart.directory().resolve("../..").normalize();

  @Test
  void theChartRunsTheImageAsItIsBuilt() throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    Stages image = dockerfile.image(Map.of());
    JsonNode values = HelmChart.YAML.readTree(HelmChart.directory().resolve("values.yaml").toFile());
    assertThat(image.last("USER")).isEqualTo(values.path("podSecurityContext").path("runAsUser").asText() + ":"
        + values.path("podSecurityContext").path("runAsGroup").asText());
    assertThat(image.last("EXPOSE")).isEqualTo(values.path("ports").path("api").asText() + " "
        + values.path("ports").path("admin").asText());
    JsonNode container = HelmChart.render(HelmChart.example("minimal.yaml")).daemonContainer();
    assertThat(image.last("CMD")).isEqualTo(container.path("args").toString().replace(",", ", "));
    assertThat(image.last("ENTRYPOINT")).isEqualTo("[\"/opt/hudi-tsd/bin/tsd\"]");
    // The build stage builds what bin/tsd builds, and the runtime stage copies what it produces.
    assertThat(dockerfile.all("RUN")).anyMatch(run -> run.contains("mvn -B -ntp -DskipTests package -pl api -am"));
    assertThat(image.copies()).containsEntry("/src/api/target/hudi-tsd.jar",
        "/opt/hudi-tsd/api/target/hudi-tsd.jar").containsEntry("/src/api/target/lib/", "/opt/hudi-tsd/api/target/lib/")
        .containsEntry("bin/tsd", "/opt/hudi-tsd/bin/tsd")
        // The extra jars' directory beside bin/, where the launcher looks (docs/object-stores.md).
        .containsEntry("lib/ext/", "/opt/hudi-tsd/lib/ext/");
    assertThat(HOME.resolve("lib/ext")).isDirectory();
    // Without the build argument the image has no Spark client.
    assertThat(dockerfile.globalArgs()).containsEntry("WITH_SPARK", "false");
    assertThat(image.copies().values()).noneMatch(target -> target.startsWith("/opt/spark"));
    assertThat(image.env()).doesNotContainKey("SPARK_HOME");
  }

  @Test
  void theSparkImageCarriesTheClientWhereTheChartAndTheDaemonLookForIt() throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    Stages image = dockerfile.image(Map.of("WITH_SPARK", "true"));
    // What the runner module assembles (spark-runner/target/spark-home: bin/spark-submit, jars/, conf/).
    assertThat(image.copies()).containsEntry("/src/spark-runner/target/spark-home/", "/opt/spark/");
    String sparkHome = HelmChart.render(HelmChart.example("spark-submit.yaml")).daemonConfig().path("spark")
        .path("sparkHome").asText();
    assertThat(image.env()).containsEntry("SPARK_HOME", sparkHome).containsEntry("SPARK_SCALA_VERSION", "2.12");
    // The spark section's defaults: the runner jar and the lock-providers jar beside hudi-tsd.jar.
    Path daemonJar = Path.of(image.copies().get("/src/api/target/hudi-tsd.jar"));
    assertThat(image.copies())
        .containsEntry("/src/spark-runner/target/hudi-tsd-spark-runner.jar",
            daemonJar.resolveSibling("hudi-tsd-spark-runner.jar").toString())
        .containsEntry("/src/api/target/hudi-tsd-lock-providers.jar",
            daemonJar.resolveSibling("hudi-tsd-lock-providers.jar").toString());
    // The same user, ports and command as without Spark.
    Stages plain = dockerfile.image(Map.of());
    for (String instruction : List.of("USER", "EXPOSE", "CMD", "ENTRYPOINT", "WORKDIR")) {
      assertThat(image.last(instruction)).as(instruction).isEqualTo(plain.last(instruction));
    }
    // The build stage packages the runner only when asked to.
    assertThat(dockerfile.all("RUN")).anyMatch(run -> run.contains("if [ \"$WITH_SPARK\" = true ]")
        && run.contains("mvn -B -ntp -DskipTests package -pl api,spark-runner -am"));
  }

  @Test
  void theBuildStageHasThePomOfEveryModuleTheReactorReads() throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    String pom = Files.readString(HOME.resolve("pom.xml"));
    Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
    List<String> copied = dockerfile.stage("build").instructions().stream()
        .filter(parts -> parts[0].equals("COPY")).map(parts -> parts[1].split("\\s+")[0]).toList();
    while (module.find()) {
      String name = module.group(1);
      assertThat(copied).as("module %s", name).anyMatch(source -> source.equals(name) || source.equals(name
          + "/pom.xml"));
    }
  }

  @Test
  void theEntrypointStartsTheDaemonWithHadoopConfigurationOnTheClassPath(@TempDir Path root) throws Exception {
    Dockerfile dockerfile = Dockerfile.read(HOME.resolve("Dockerfile"));
    for (Map.Entry<String, String> copy : dockerfile.image(Map.of()).copies().entrySet()) {
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
    List<String> arguments = run(builder);
    assertThat(arguments).containsSequence("-XX:MaxRAMPercentage=70.0", "-XX:+ExitOnOutOfMemoryError");
    // Hadoop's configuration first, then the daemon's jar (its manifest names lib/), then the extra jars.
    String daemonJar = root.resolve("opt/hudi-tsd/api/target/hudi-tsd.jar").toString();
    String ext = root.resolve("opt/hudi-tsd/lib/ext") + "/*";
    assertThat(arguments).containsSequence("-cp", "/etc/hadoop/conf:" + daemonJar + ":" + ext);
    assertThat(arguments).endsWith("io.huditsd.api.TsdApplication", "server", "/etc/tsd/tsd.yml");

    // TSD_EXTRA_CLASSPATH goes after lib/ext, still behind the daemon's own jars.
    builder.environment().put("TSD_EXTRA_CLASSPATH", "/opt/gcs/gcs-connector.jar:/opt/azure/*");
    assertThat(run(builder)).containsSequence("-cp",
        "/etc/hadoop/conf:" + daemonJar + ":" + ext + ":/opt/gcs/gcs-connector.jar:/opt/azure/*");
  }

  /** The stand-in java's arguments, one a line. */
  private static List<String> run(ProcessBuilder builder) throws Exception {
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().toList();
  }

  /** The instructions of a Dockerfile, continuation lines joined. */
  private record Dockerfile(List<String[]> instructions) {
    private static final Pattern FROM = Pattern.compile("(\\S+)(?:\\s+AS\\s+(\\S+))?", Pattern.CASE_INSENSITIVE);
    private static final Pattern ARGUMENT = Pattern.compile("\\$\\{(\\w+)}");

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

    /** ARG defaults declared before the first FROM, the ones a FROM line may use. */
    Map<String, String> globalArgs() {
      Map<String, String> args = new LinkedHashMap<>();
      for (String[] parts : instructions) {
        if (parts[0].equals("FROM")) {
          break;
        }
        if (parts[0].equals("ARG")) {
          String[] nameAndDefault = parts[1].split("=", 2);
          args.put(nameAndDefault[0], nameAndDefault.length > 1 ? nameAndDefault[1] : "");
        }
      }
      return args;
    }

    /** The stages in order: FROM's base (unresolved) and name, and the instructions up to the next FROM. */
    List<Stage> stages() {
      List<Stage> stages = new ArrayList<>();
      for (String[] parts : instructions) {
        if (parts[0].equals("FROM")) {
          Matcher from = FROM.matcher(parts[1]);
          assertThat(from.matches()).as("FROM %s", parts[1]).isTrue();
          stages.add(new Stage(from.group(1), from.group(2), new ArrayList<>()));
        } else if (!stages.isEmpty()) {
          stages.get(stages.size() - 1).instructions().add(parts);
        }
      }
      return stages;
    }

    Stage stage(String name) {
      return stages().stream().filter(stage -> name.equals(stage.name())).findFirst()
          .orElseThrow(() -> new AssertionError("no stage " + name));
    }

    /** The image docker build makes with these build arguments: the last stage and the stages it is based on. */
    Stages image(Map<String, String> buildArgs) {
      Map<String, String> args = new LinkedHashMap<>(globalArgs());
      args.putAll(buildArgs);
      List<Stage> stages = stages();
      List<Stage> chain = new ArrayList<>();
      Stage stage = stages.get(stages.size() - 1);
      while (stage != null) {
        chain.add(0, stage);
        Matcher argument = ARGUMENT.matcher(stage.base());
        String base = argument.replaceAll(match -> args.getOrDefault(match.group(1), ""));
        stage = stages.stream().filter(candidate -> base.equals(candidate.name())).findFirst().orElse(null);
      }
      return new Stages(chain);
    }
  }

  private record Stage(String base, String name, List<String[]> instructions) {
  }

  /** A runtime image as a chain of stages, from the external base image on. */
  private record Stages(List<Stage> chain) {
    List<String> all(String instruction) {
      return chain.stream().flatMap(stage -> stage.instructions().stream())
          .filter(parts -> parts[0].equals(instruction)).map(parts -> parts[1]).toList();
    }

    String last(String instruction) {
      List<String> all = all(instruction);
      assertThat(all).as("%s instructions", instruction).isNotEmpty();
      return all.get(all.size() - 1);
    }

    /** Sources and targets of the COPY instructions. */
    Map<String, String> copies() {
      Map<String, String> copies = new LinkedHashMap<>();
      for (String copy : all("COPY")) {
        String[] words = copy.replace("--from=build ", "").split("\\s+");
        copies.put(words[0], words[1]);
      }
      return copies;
    }

    /** The variables ENV sets (KEY=VALUE pairs, quotes removed). */
    Map<String, String> env() {
      Map<String, String> env = new LinkedHashMap<>();
      Matcher pair = Pattern.compile("(\\w+)=(\"[^\"]*\"|\\S+)").matcher(String.join(" ", all("ENV")));
      while (pair.find()) {
        env.put(pair.group(1), pair.group(2).replace("\"", ""));
      }
      return env;
    }
  }
}
