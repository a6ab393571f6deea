package io.huditsd.it.support;

/** The part of a test daemon's YAML every end-to-end test shares: its ports and a log that shows its runs. */
public final class DaemonYaml {
  private DaemonYaml() {
  }

  /** {@code server} with the given application and admin ports, and {@code logging} with the daemon at INFO. */
  public static String serverAndLogging(int port, int adminPort) {
    return """
        server:
          applicationConnectors:
            - type: http
              port: %d
          adminConnectors:
            - type: http
              port: %d
        logging:
          level: WARN
          loggers:
            io.huditsd: INFO
        """.formatted(port, adminPort);
  }
}
