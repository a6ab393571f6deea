package io.huditsd.api;

import io.huditsd.config.ServiceType;
import io.huditsd.config.TsdConfiguration;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The one line the daemon logs once it listens: what it serves and where, in place of the start-up noise of the
 * libraries it runs on.
 */
final class ServingSummary {
  private ServingSummary() {
  }

  static String line(TsdConfiguration configuration, int apiPort, int adminPort, boolean tokenRequired) {
    List<String> what = new ArrayList<>();
    what.add(configuration.getTables().size() + " named table(s)");
    List<String> roots = configuration.getDiscovery().roots();
    if (!roots.isEmpty()) {
      what.add("the tables under " + String.join(", ", roots));
    }
    String services = configuration.getServices().stream().sorted().map(ServiceType::configName)
        .collect(Collectors.joining(","));
    String sharing = configuration.getHa().map(ha -> "as replica " + ha.replicaId() + " of those sharing "
        + ha.zookeeper() + ha.basePath()).orElse("as the only replica");
    return "hudi-tsd serving " + String.join(" and ", what) + " (services " + services + ") " + sharing
        + "; API on port " + apiPort + (tokenRequired ? " (bearer token required)" : " (open)")
        + ", admin on port " + adminPort + (configuration.getSpark().isPresent() ? ", Spark engine on" : "");
  }
}
