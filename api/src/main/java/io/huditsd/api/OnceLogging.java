package io.huditsd.api;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Logging of {@code bin/tsd once}. Dropwizard bootstraps a plain command's logging with a console appender filtered
 * at WARN and leaves the root logger at logback's DEBUG: every library then does its DEBUG work for lines the filter
 * drops (Parquet wraps each record writer in a logging wrapper that formats every value written, about a quarter of a
 * compaction's CPU and half of a clustering's), and the daemon's own progress lines (one per plan scheduled, started
 * and finished) never print. Here the levels decide instead: the daemon's loggers at INFO, everything else at WARN,
 * and the console prints what they let through.
 */
final class OnceLogging {
  private OnceLogging() {
  }

  static void configure(LoggerContext context) {
    configure(context, false);
  }

  /** @param toStderr console lines go to stderr, leaving stdout to {@code --json}'s summary */
  static void configure(LoggerContext context, boolean toStderr) {
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
    context.getLogger("io.huditsd").setLevel(Level.INFO);
    // Hadoop's "Unable to load native-hadoop library" is a WARN every run prints and nobody acts on.
    context.getLogger("org.apache.hadoop.util.NativeCodeLoader").setLevel(Level.ERROR);
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    List<Appender<ILoggingEvent>> appenders = new ArrayList<>();
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      appenders.add(it.next());
    }
    for (Appender<ILoggingEvent> appender : appenders) {
      // Dropwizard's bootstrap filter is the appender's only one; INFO lets the daemon's lines through.
      appender.clearAllFilters();
      ThresholdFilter info = new ThresholdFilter();
      info.setLevel(Level.INFO.toString());
      info.setContext(context);
      info.start();
      appender.addFilter(info);
      if (toStderr && appender instanceof ConsoleAppender<ILoggingEvent> console) {
        // The target is opened at start.
        console.stop();
        console.setTarget("System.err");
        console.start();
      }
    }
  }
}
