package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Answer to a schedule request.
 *
 * @param service the service asked for
 * @param dryRun whether this was a dry run
 * @param instant the instant of the plan written; null for a dry run or when there was nothing to plan
 * @param plan the plan written or previewed; null when there was nothing to plan
 * @param message what happened, in words
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleResponse(String service, boolean dryRun, String instant, PlanView plan, String message) {
}
