package io.huditsd.executors;

import io.huditsd.config.ServiceType;

import java.util.Objects;
import java.util.Set;

/**
 * A plan on a table's timeline that has not completed.
 *
 * @param service the service the plan belongs to
 * @param instant the plan's requested instant time
 * @param inflight whether execution had started (an {@code .inflight} file exists)
 * @param fileGroupIds the file groups the plan touches ({@code partition/fileId}); empty for clean plans
 * @param inputBytes bytes the plan reads, as far as the plan says (log bytes for compaction)
 */
public record PendingPlan(ServiceType service, String instant, boolean inflight, Set<String> fileGroupIds,
                          long inputBytes) {
  public PendingPlan {
    Objects.requireNonNull(service, "service is null");
    Objects.requireNonNull(instant, "instant is null");
    fileGroupIds = Set.copyOf(fileGroupIds);
  }
}
