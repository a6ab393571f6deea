package io.huditsd.api;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.config.TsdConfiguration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The admin port's {@code /tasks/log-level} of a real daemon: a change for a while puts back the level the logger
 * had (the root logger's too, where Dropwizard's task failed and left DEBUG on for good, and stopped every later
 * timed change), and a request it cannot carry out answers the REST API's JSON 400 and changes nothing.
 */
class TestLogLevelTask {
  private static final String CONFIGURED = "io.huditsd.test.configured";
  private static final String UNCONFIGURED = "io.huditsd.test.unconfigured";

  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static RestClient admin;

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    Path dir = Files.createTempDirectory("tsd-log-level");
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
        logging:
          level: INFO
          loggers:
            %s: WARN
        history:
          file: %s
        tableServiceManager:
          registerUnknownTables: true
        auth:
          openAdmin: true
        """.formatted(CONFIGURED, dir.resolve("history.jsonl")));
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    admin = new RestClient("http://localhost:" + daemon.getAdminPort(), null);
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  void rootLoggerReturnsToItsLevelAndLaterTimedChangesStillWork() {
    assertThat(level(Logger.ROOT_LOGGER_NAME)).isEqualTo(Level.INFO);
    Reply raised = admin.post("/tasks/log-level?logger=ROOT&level=DEBUG&duration=PT1S", null);
    assertThat(raised.status()).as(raised.body()).isEqualTo(200);
    assertThat(raised.body()).isEqualTo("Configured logging level for ROOT to DEBUG for 1000 milliseconds\n");
    assertThat(level(Logger.ROOT_LOGGER_NAME)).isEqualTo(Level.DEBUG);
    awaitLevel(Logger.ROOT_LOGGER_NAME, Level.INFO);

    Reply again = admin.post("/tasks/log-level?logger=ROOT&level=TRACE&duration=PT1S", null);
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(level(Logger.ROOT_LOGGER_NAME)).isEqualTo(Level.TRACE);
    awaitLevel(Logger.ROOT_LOGGER_NAME, Level.INFO);
  }

  /** The configured level, not "inherit"; a second change before the first ends still ends where it started. */
  @Test
  void loggersReturnToTheLevelTheyHadBefore() {
    assertThat(level(CONFIGURED)).isEqualTo(Level.WARN);
    assertThat(admin.post("/tasks/log-level?logger=" + CONFIGURED + "&logger=" + UNCONFIGURED
        + "&level=DEBUG&duration=PT1S", null).status()).isEqualTo(200);
    assertThat(admin.post("/tasks/log-level?logger=" + CONFIGURED + "&level=TRACE&duration=PT2S", null).status())
        .isEqualTo(200);
    assertThat(level(CONFIGURED)).isEqualTo(Level.TRACE);
    assertThat(level(UNCONFIGURED)).isEqualTo(Level.DEBUG);
    awaitLevel(UNCONFIGURED, null);
    awaitLevel(CONFIGURED, Level.WARN);
  }

  @Test
  void aRequestItCannotCarryOutAnswersJson400AndChangesNothing() {
    assertRefused("logger=ROOT&level=DEBUG&duration=soon",
        "duration 'soon' is not an ISO-8601 duration such as PT30S or PT5M");
    assertRefused("logger=ROOT&level=DEBUG&duration=-PT1S", "duration '-PT1S' must be positive, such as PT30S or PT5M");
    assertRefused("logger=ROOT&level=DEBUGG", "Unknown level 'DEBUGG': use one of OFF, ERROR, WARN, INFO, DEBUG, "
        + "TRACE, ALL, or leave level out to inherit the parent's");
    assertRefused("logger=ROOT&level=DEBUG&for=PT1S",
        "Unknown parameter(s) for: /tasks/log-level takes logger (one or more), level and duration");
    assertRefused("level=DEBUG", "Name the logger(s) to change: logger=NAME (ROOT for the root logger)");
    assertRefused("logger=" + UNCONFIGURED + "&logger=ROOT",
        "The root logger has no parent to inherit a level from: name a level");
    assertThat(level(Logger.ROOT_LOGGER_NAME)).isEqualTo(Level.INFO);
    assertThat(level(UNCONFIGURED)).isNull();
  }

  private static void assertRefused(String query, String message) {
    Reply refused = admin.post("/tasks/log-level?" + query, null);
    assertThat(refused.status()).as(refused.body()).isEqualTo(400);
    assertThat(refused.contentType()).startsWith("application/json");
    assertThat(refused.json().path("code").asInt()).isEqualTo(400);
    assertThat(refused.json().path("message").asText()).isEqualTo(message);
  }

  private static void awaitLevel(String logger, Level level) {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(level(logger)).as(logger).isEqualTo(level));
  }

  /** The logger's own level, null when it inherits; the daemon runs in this JVM. */
  private static Level level(String logger) {
    return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(logger).getLevel();
  }
}
