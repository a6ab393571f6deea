package io.huditsd.executors;

import io.huditsd.config.ServiceType;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What one execution of a table service did.
 *
 * @param service the service
 * @param instant the instant executed, when the service works on one (archive does not)
 * @param fileGroups file groups written (compaction, clustering) or files deleted (clean)
 * @param bytesIn bytes read
 * @param bytesOut bytes written
 * @param duration wall time of the execution
 */
public record ActionResult(ServiceType service, Optional<String> instant, long fileGroups, long bytesIn,
                           long bytesOut, Duration duration) {
  public ActionResult {
    Objects.requireNonNull(service, "service is null");
    Objects.requireNonNull(instant, "instant is null");
    Objects.requireNonNull(duration, "duration is null");
  }
}
