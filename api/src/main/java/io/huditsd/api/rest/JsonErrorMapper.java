package io.huditsd.api.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

import java.util.stream.Collectors;

/** Turns a malformed JSON body into a 400 that names the field and what was wrong with it. */
public final class JsonErrorMapper implements ExceptionMapper<JsonProcessingException> {
  @Override
  public Response toResponse(JsonProcessingException exception) {
    String message;
    if (exception instanceof UnrecognizedPropertyException unknown) {
      message = "unknown field '" + unknown.getPropertyName() + "'" + knownFields(unknown);
    } else if (exception instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      String field = mapping.getPath().stream()
          .map(reference -> reference.getFieldName() != null ? reference.getFieldName()
              : "[" + reference.getIndex() + "]")
          .collect(Collectors.joining("."));
      message = field + ": " + mapping.getOriginalMessage().split("\n")[0];
    } else {
      message = "body is not valid JSON: " + exception.getOriginalMessage().split("\n")[0];
    }
    return Response.status(400).type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorMessage(400, message)).build();
  }

  private static String knownFields(UnrecognizedPropertyException unknown) {
    if (unknown.getKnownPropertyIds() == null || unknown.getKnownPropertyIds().isEmpty()) {
      return "";
    }
    return "; expected " + unknown.getKnownPropertyIds().stream().map(Object::toString).sorted()
        .collect(Collectors.joining(", "));
  }
}
