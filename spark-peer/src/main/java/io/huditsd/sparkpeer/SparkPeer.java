package io.huditsd.sparkpeer;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Spark 3.5 application with the official Hudi bundle, driven by the integration tests over stdin: one JSON
 * command per line, one answer line per command on stdout. It is what a user's Spark job is to the daemon: an
 * independent writer and reader of the same tables, in a JVM that shares no class with the daemon's Hudi.
 *
 * <p>Commands ({@code "command"} field):
 * <ul>
 *   <li>{@code write}: {@code path}, {@code input} (JSON lines), {@code schema} (Spark DDL of the input),
 *       {@code options} (Hudi datasource options), {@code mode} ({@code append} or {@code overwrite}). Answer:
 *       {@code {"rows": n}}.</li>
 *   <li>{@code read}: {@code path}, {@code options} (e.g. {@code hoodie.datasource.query.type}), {@code output}: every
 *       row as a JSON line. Answer: {@code {"rows": n}}.</li>
 *   <li>{@code sql}: {@code sql}, {@code output}: every result row as a JSON line (for {@code hudi_filesystem_view}
 *       and {@code CALL} procedures). Answer: {@code {"rows": n}}.</li>
 *   <li>{@code stop}: ends the session and the process.</li>
 * </ul>
 *
 * <p>stdout carries only answers, lines starting with {@value #ANSWER}: {@code ready <spark version>} once, then
 * {@code ok <json>} or {@code error <message>} per command. Spark's and Hudi's output goes to stderr. A failed
 * command is answered, its stack trace goes to stderr, and the session stays up for the next command.
 */
public final class SparkPeer {
  public static final String ANSWER = "@@peer ";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SparkSession spark;
  private final PrintStream answers;

  private SparkPeer(SparkSession spark, PrintStream answers) {
    this.spark = spark;
    this.answers = answers;
  }

  public static void main(String[] arguments) throws IOException {
    // Answers own stdout; whatever Spark or Hudi print to System.out goes to stderr with their logs.
    PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    SparkSession spark = session(arguments.length > 0 ? arguments[0] : System.getProperty("java.io.tmpdir"));
    SparkPeer peer = new SparkPeer(spark, answers);
    answers.println(ANSWER + "ready " + spark.version());
    try (BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = input.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        if (!peer.handle(line)) {
          break;
        }
      }
    } finally {
      spark.stop();
    }
    answers.println(ANSWER + "stopped");
    // Hudi's and Spark's non-daemon threads must not keep a finished peer alive.
    System.exit(0);
  }

  private static SparkSession session(String workDirectory) {
    return SparkSession.builder()
        .appName("hudi-tsd-spark-peer")
        .master("local[2]")
        // Loopback only: the tests run on machines where nothing else may be reached.
        .config("spark.driver.host", "localhost")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.local.dir", workDirectory + "/spark-local")
        .config("spark.sql.warehouse.dir", workDirectory + "/spark-warehouse")
        // As Hudi's quick start configures a session.
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .getOrCreate();
  }

  /** Runs one command; false after {@code stop}. */
  private boolean handle(String line) {
    try {
      JsonNode command = JSON.readTree(line);
      String name = text(command, "command");
      long start = System.nanoTime();
      long rows;
      switch (name) {
        case "write" -> rows = write(command);
        case "read" -> rows = read(command);
        case "sql" -> rows = sql(command);
        case "stop" -> {
          return false;
        }
        default -> throw new IllegalArgumentException("unknown command '" + name + "'");
      }
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("rows", rows);
      answer.put("millis", (System.nanoTime() - start) / 1_000_000);
      answers.println(ANSWER + "ok " + JSON.writeValueAsString(answer));
    } catch (Throwable e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      System.err.println("Command failed: " + line + "\n" + trace);
      answers.println(ANSWER + "error " + causes(e).replace('\n', ' '));
    }
    return true;
  }

  private long write(JsonNode command) {
    Dataset<Row> rows = spark.read().schema(text(command, "schema")).json(text(command, "input"));
    SaveMode mode = "overwrite".equals(command.path("mode").asText("append")) ? SaveMode.Overwrite : SaveMode.Append;
    long count = rows.count();
    rows.write().format("hudi").options(options(command)).mode(mode).save(text(command, "path"));
    return count;
  }

  /** Reads a table; an optional {@code filter} (a SQL expression) is pushed down, as a query's WHERE clause is. */
  private long read(JsonNode command) throws IOException {
    DataFrameReader reader = spark.read().format("hudi").options(options(command));
    Dataset<Row> rows = reader.load(text(command, "path"));
    if (command.hasNonNull("filter")) {
      rows = rows.filter(text(command, "filter"));
    }
    return dump(rows, text(command, "output"));
  }

  private long sql(JsonNode command) throws IOException {
    return dump(spark.sql(text(command, "sql")), text(command, "output"));
  }

  /** Every row as one JSON object per line; the tables here are small enough to collect. */
  private static long dump(Dataset<Row> rows, String output) throws IOException {
    List<String> lines = rows.toJSON().collectAsList();
    Files.write(Path.of(output), lines, StandardCharsets.UTF_8);
    return lines.size();
  }

  private static Map<String, String> options(JsonNode command) {
    JsonNode options = command.path("options");
    if (options.isMissingNode() || options.isNull()) {
      return Map.of();
    }
    return JSON.convertValue(options, new TypeReference<Map<String, String>>() {
    });
  }

  private static String text(JsonNode command, String field) {
    JsonNode value = command.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not a string in " + command);
    }
    return value.asText();
  }

  /** The messages of an exception and its causes, so the driver sees the root cause without the trace. */
  private static String causes(Throwable error) {
    StringBuilder text = new StringBuilder();
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (text.length() > 0) {
        text.append(" <- caused by: ");
      }
      text.append(cause.getClass().getName()).append(": ").append(cause.getMessage());
      if (cause.getCause() == cause) {
        break;
      }
    }
    return text.toString();
  }
}
