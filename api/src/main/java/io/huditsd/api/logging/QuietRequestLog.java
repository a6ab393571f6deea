package io.huditsd.api.logging;

import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * logback-access prints its status at the request log's start, and on this class path that status always holds two
 * version warnings ("Versions of logback-access-common and logback-access-jetty12 are different", "Expected version
 * of logback-core is ?"): Dropwizard's request log declares its own version, not logback-access's, and logback-core
 * 1.5 declares none that logback-access 2.0 reads. Nothing is wrong; the request log is set quiet before it starts.
 * Reflection: logback-access is Dropwizard's dependency, not the daemon's.
 */
public final class QuietRequestLog implements LifeCycle.Listener {
  @Override
  public void lifeCycleStarting(LifeCycle event) {
    if (event instanceof Server server) {
      quiet(server.getRequestLog());
    }
  }

  static void quiet(RequestLog log) {
    if (log == null) {
      return;
    }
    try {
      log.getClass().getMethod("setQuiet", boolean.class).invoke(log, true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Another request log: it prints what it prints.
    }
  }
}
