package io.huditsd.api.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.AppenderAttachable;
import com.codahale.metrics.logback.InstrumentedAppender;
import io.dropwizard.logback.AsyncAppenderBaseProxy;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Puts a {@link RedactingEncoder} in front of every appender that writes text: the appenders of every logger
 * (Dropwizard's {@code logging.appenders}, console, file, tcp, udp, each possibly behind an async or throttling
 * wrapper) and those of the request log ({@code server.requestLog.appenders}). Dropwizard builds the first before
 * {@code Application.run} and the second while it builds the server, so both are wrapped when the server starts,
 * before its connectors accept a request. An appender that writes text in a way this cannot wrap (syslog) is refused
 * rather than left to leak: the daemon does not start.
 */
public final class LogRedaction {
  private final LogRedactor redactor;

  public LogRedaction(LogRedactor redactor) {
    this.redactor = requireNonNull(redactor, "redactor is null");
  }

  /** Wraps the appenders of every logger now; calling it again wraps only what was added since. */
  public void redactLoggers() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    List<String> refused = new ArrayList<>();
    for (Logger logger : context.getLoggerList()) {
      for (Iterator<Appender<ILoggingEvent>> appenders = logger.iteratorForAppenders(); appenders.hasNext(); ) {
        wrap(appenders.next(), refused);
      }
    }
    failOn(refused);
  }

  /** Wraps the appenders of the server's request log, if it has one made of logback appenders. */
  public void redactRequestLog(Server server) {
    RequestLog requestLog = server.getRequestLog();
    List<String> refused = new ArrayList<>();
    if (requestLog instanceof AppenderAttachable<?> attachable) {
      wrapAll(attachable, refused);
    }
    failOn(refused);
  }

  /** Wraps the loggers' and the request log's appenders when the server starts. */
  public LifeCycle.Listener onServerStarting() {
    return new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server) {
          redactLoggers();
          redactRequestLog(server);
        }
      }
    };
  }

  private <E> void wrapAll(AppenderAttachable<E> attachable, List<String> refused) {
    for (Iterator<Appender<E>> appenders = attachable.iteratorForAppenders(); appenders.hasNext(); ) {
      wrap(appenders.next(), refused);
    }
  }

  @SuppressWarnings("unchecked")
  private <E> void wrap(Appender<E> appender, List<String> refused) {
    if (appender instanceof OutputStreamAppender<E> output) {
      Encoder<E> encoder = output.getEncoder();
      if (encoder != null && !(encoder instanceof RedactingEncoder<E>)) {
        output.setEncoder(new RedactingEncoder<>(encoder, redactor));
      }
    } else if (appender instanceof AsyncAppenderBaseProxy<?> proxy) {
      wrap((Appender<E>) proxy.getAppender(), refused);
    } else if (appender instanceof AppenderAttachable<?> attachable) {
      wrapAll((AppenderAttachable<E>) attachable, refused);
    } else if (!(appender instanceof InstrumentedAppender)) {
      // InstrumentedAppender only counts events by level for the metrics.
      refused.add("'" + appender.getName() + "' (" + appender.getClass().getName() + ")");
    }
  }

  private static void failOn(List<String> refused) {
    if (!refused.isEmpty()) {
      throw new IllegalStateException("Logging appenders " + String.join(", ", refused) + " cannot have "
          + "credentials redacted from their lines (Authorization headers reach Jetty's DEBUG logs): use console, "
          + "file, tcp or udp appenders");
    }
  }
}
