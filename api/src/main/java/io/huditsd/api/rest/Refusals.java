package io.huditsd.api.rest;

import io.huditsd.scheduler.OperationOutcomes.NoPendingPlan;
import io.huditsd.scheduler.OperationOutcomes.NoPlanForService;
import io.huditsd.scheduler.OperationOutcomes.Refusal;
import io.huditsd.scheduler.OperationOutcomes.UnknownTable;

/**
 * The status codes of the refusals of {@link io.huditsd.scheduler.TableOperations}, in one place for every resource:
 * 404 when the table or plan does not exist, 400 when the request can never be done, 409 when the table's state
 * (owner, pause, pending plans, enabled services, a file of the table that cannot be read) refuses it now. The body is the JSON error with the refusal's words.
 */
final class Refusals {
  private Refusals() {
  }

  static ApiException toApiException(Refusal refusal) {
    if (refusal instanceof UnknownTable || refusal instanceof NoPendingPlan) {
      return ApiException.notFound(refusal.message());
    }
    if (refusal instanceof NoPlanForService) {
      return ApiException.badRequest("service: " + refusal.message());
    }
    return ApiException.conflict(refusal.message());
  }

  /** For an outcome that is not one of the successes a resource answers: it is a refusal, as the types are sealed. */
  static ApiException toApiException(Object outcome) {
    if (outcome instanceof Refusal refusal) {
      return toApiException(refusal);
    }
    throw new IllegalStateException("Unexpected outcome " + outcome);
  }
}
