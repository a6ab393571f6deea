package io.huditsd.api.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.net.SyslogAppender;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AsyncAppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import io.dropwizard.logback.ThrottlingAppenderWrapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Which appenders of the logging context get their output redacted, and which make the daemon refuse to start. */
class TestLogRedaction {
  private static final String TOKEN = "t0ken-for-appenders-42";

  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Logger logger = context.getLogger("io.huditsd.test.redaction");
  private final LogRedaction redaction = new LogRedaction(new LogRedactor(List.of(TOKEN)));

  @AfterEach
  void detach() {
    logger.detachAndStopAllAppenders();
  }

  @Test
  void appendersBehindAsyncAndThrottlingWrappersWriteRedactedLines() {
    ByteArrayOutputStream direct = new ByteArrayOutputStream();
    logger.addAppender(output("direct", direct));
    ByteArrayOutputStream behindWrappers = new ByteArrayOutputStream();
    AsyncAppenderBase<ILoggingEvent> async = new AsyncAppenderBase<>();
    async.setContext(context);
    async.addAppender(output("wrapped", behindWrappers));
    async.start();
    logger.addAppender(new ThrottlingAppenderWrapper<>(async, 1000, TimeUnit.SECONDS));

    redaction.redactLoggers();
    redaction.redactLoggers();
    logger.warn("header Authorization: Bearer {}, then {}", TOKEN, TOKEN);

    await().untilAsserted(() -> assertThat(behindWrappers.toString(StandardCharsets.UTF_8)).isNotEmpty());
    for (ByteArrayOutputStream out : List.of(direct, behindWrappers)) {
      assertThat(out.toString(StandardCharsets.UTF_8))
          .isEqualTo("header Authorization: [REDACTED], then [REDACTED]\n");
    }
  }

  @Test
  void anAppenderThatCannotBeRedactedStopsTheStart() {
    SyslogAppender syslog = new SyslogAppender();
    syslog.setName("syslog-appender");
    syslog.setContext(context);
    logger.addAppender(syslog);

    assertThatThrownBy(redaction::redactLoggers).isInstanceOf(IllegalStateException.class)
        .hasMessage("Logging appenders 'syslog-appender' (ch.qos.logback.classic.net.SyslogAppender) cannot have "
            + "credentials redacted from their lines (Authorization headers reach Jetty's DEBUG logs): use console, "
            + "file, tcp or udp appenders");
  }

  private OutputStreamAppender<ILoggingEvent> output(String name, ByteArrayOutputStream out) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setName(name);
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    return appender;
  }
}
