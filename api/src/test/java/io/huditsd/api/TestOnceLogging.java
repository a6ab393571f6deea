package io.huditsd.api;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code once}'s logging on a context of its own, set up as Dropwizard's bootstrap sets up a plain command's: a
 * console-like appender filtered at WARN, the root logger left at DEBUG.
 */
class TestOnceLogging {
  @Test
  void librariesStopAtWarnAndTheDaemonsProgressLinesPrint() {
    LoggerContext context = new LoggerContext();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> console = new ListAppender<>();
    console.setContext(context);
    ThresholdFilter bootstrap = new ThresholdFilter();
    bootstrap.setLevel("WARN");
    bootstrap.start();
    console.addFilter(bootstrap);
    console.start();
    root.addAppender(console);
    assertThat(context.getLogger("org.apache.parquet.io.RecordConsumerLoggingWrapper").isDebugEnabled()).isTrue();

    OnceLogging.configure(context);

    // Parquet decides on its per-value logging wrapper by isDebugEnabled(); it must be off.
    assertThat(context.getLogger("org.apache.parquet.io.RecordConsumerLoggingWrapper").isDebugEnabled()).isFalse();
    assertThat(context.getLogger("org.apache.hudi.table.HoodieTable").isInfoEnabled()).isFalse();
    context.getLogger("io.huditsd.executors.WorkerPool").info("Finished table=t service=compaction");
    context.getLogger("org.apache.hudi.Some").info("a library's INFO line");
    context.getLogger("org.apache.hudi.Some").warn("a library's WARN line");
    context.getLogger("org.apache.hadoop.util.NativeCodeLoader").warn("Unable to load native-hadoop library");
    assertThat(console.list).extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly("Finished table=t service=compaction", "a library's WARN line");
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
  }
}
