package io.huditsd.it.support;

/** The part of a test daemon's YAML every end-to-end test shares: its ports and a log that shows its runs. */
public final class DaemonYaml {
  /**
   * {@code polling} and {@code workers} for a test that waits on the daemon: a 1 s poll, short backoffs, two workers.
   * Ends with a line break, so the YAML that follows starts at top level.
   */
  public static final String QUICK_POLLING = """
      polling:
        interval: 1s
        maxBackoff: 5s
      workers:
        count: 2
        retryBackoff: 1s
      """;

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
