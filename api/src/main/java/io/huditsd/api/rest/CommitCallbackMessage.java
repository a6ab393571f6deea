package io.huditsd.api.rest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import org.apache.hudi.common.table.timeline.TimelineUtils;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the daemon reads of Hudi's commit-callback message ({@code HoodieWriteCommitCallbackMessage} as Hudi 1.2.0's
 * {@code HoodieWriteCommitCallbackUtil} writes it with Jackson): {@code commitTime}, {@code tableName},
 * {@code basePath}, the number of entries in {@code hoodieWriteStat}. Hudi 1.2.0 writes {@code commitActionType}
 * and {@code extraMetadata} as its {@code Option} bean ({@code {"empty":false,"present":true}}, the value lost); a
 * plain string action, as a later Hudi may send, is read. The body is read as a stream: a commit's write stats
 * (about 1 KB per file written) are counted, never held.
 *
 * @param action the commit's action when the message carries it as a string
 * @param writeStats how many files the commit wrote, as far as the message tells
 */
record CommitCallbackMessage(String commitTime, Optional<String> tableName, String basePath,
                             Optional<String> action, int writeStats) {
  private static final JsonFactory JSON = new JsonFactory();
  /** Hudi's instant times: {@code yyyyMMddHHmmss} with milliseconds since 0.10, and a few fixed ones of digits. */
  private static final Pattern INSTANT = Pattern.compile("\\d{14,20}");

  CommitCallbackMessage {
    Objects.requireNonNull(commitTime, "commitTime is null");
    Objects.requireNonNull(tableName, "tableName is null");
    Objects.requireNonNull(basePath, "basePath is null");
    Objects.requireNonNull(action, "action is null");
  }

  /** The commit time as a time, read as Hudi reads its instants; empty for one that is not a time. */
  Optional<Instant> commitInstant() {
    return Optional.ofNullable(TimelineUtils.parseDateFromInstantTimeSafely(commitTime).orElse(null))
        .map(date -> date.toInstant());
  }

  /**
   * @throws ApiException 400 naming what is wrong when the body is not such a message
   */
  static CommitCallbackMessage read(InputStream body) {
    try (JsonParser parser = JSON.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw ApiException.badRequest("body: expected Hudi's commit callback message, a JSON object");
      }
      String commitTime = null;
      String tableName = null;
      String basePath = null;
      String action = null;
      int writeStats = 0;
      for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "commitTime" -> commitTime = text(parser, value, field);
          case "tableName" -> tableName = text(parser, value, field);
          case "basePath" -> basePath = text(parser, value, field);
          case "commitActionType" -> action = value == JsonToken.VALUE_STRING ? parser.getText() : skip(parser);
          case "hoodieWriteStat" -> writeStats = count(parser, value);
          default -> parser.skipChildren();
        }
      }
      if (commitTime == null || !INSTANT.matcher(commitTime).matches()) {
        throw ApiException.badRequest("commitTime: expected a Hudi instant time of 14 to 20 digits, got "
            + (commitTime == null ? "none" : "'" + clip(commitTime) + "'"));
      }
      if (basePath == null || basePath.isBlank()) {
        throw ApiException.badRequest("basePath: is required");
      }
      return new CommitCallbackMessage(commitTime, Optional.ofNullable(tableName), basePath,
          Optional.ofNullable(action), writeStats);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("body: not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw ApiException.badRequest("body: cannot be read: " + e.getMessage());
    }
  }

  private static String text(JsonParser parser, JsonToken value, String field) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return null;
    }
    if (value != JsonToken.VALUE_STRING) {
      throw ApiException.badRequest(field + ": expected a string, got " + describe(value));
    }
    return parser.getText();
  }

  private static String describe(JsonToken token) {
    return switch (token) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> token.name();
    };
  }

  private static String skip(JsonParser parser) throws IOException {
    parser.skipChildren();
    return null;
  }

  private static int count(JsonParser parser, JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      parser.skipChildren();
      return 0;
    }
    int count = 0;
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      parser.skipChildren();
      count++;
    }
    return count;
  }

  private static String clip(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "...";
  }
}
