package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Optional body of {@code POST /tables/{id}/plans/{instant}/execute}.
 *
 * @param engine {@code spark} or {@code java}: where the plan runs, over the table's engine policy; null: the policy
 *     decides
 */
public record ExecuteRequest(String engine) {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @JsonCreator
  public ExecuteRequest(@JsonProperty("engine") String engine) {
    this.engine = engine;
  }

  /**
   * The request in {@code body}; an empty body (the endpoint took none before) asks for nothing.
   *
   * @throws JsonProcessingException answered 400 naming the field by {@link JsonErrorMapper}
   */
  static ExecuteRequest parse(String body) throws JsonProcessingException {
    if (body == null || body.isBlank()) {
      return new ExecuteRequest(null);
    }
    ExecuteRequest request = JSON.readValue(body, ExecuteRequest.class);
    return request == null ? new ExecuteRequest(null) : request;
  }
}
