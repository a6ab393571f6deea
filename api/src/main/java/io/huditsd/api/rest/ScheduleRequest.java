package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of {@code POST /tables/{id}/schedule}.
 *
 * @param service compaction, clustering or clean
 * @param dryRun when true, return the plan that would be written without writing it
 */
public record ScheduleRequest(String service, boolean dryRun) {
  @JsonCreator
  public ScheduleRequest(@JsonProperty("service") String service, @JsonProperty("dryRun") Boolean dryRun) {
    this(service, dryRun != null && dryRun);
  }
}
