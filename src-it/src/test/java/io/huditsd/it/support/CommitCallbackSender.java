package io.huditsd.it.support;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hudi.callback.common.HoodieWriteCommitCallbackMessage;
import org.apache.hudi.callback.util.HoodieWriteCommitCallbackUtil;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.util.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sends a Hudi writer's HTTP commit callback the way {@code HoodieWriteCommitHttpCallbackClient} does (POST, JSON,
 * the key in {@code HUDI-CALLBACK-KEY}), with a body made by Hudi's own classes: a
 * {@code HoodieWriteCommitCallbackMessage} as {@code BaseHoodieWriteClient.commitStats} builds it, turned into JSON
 * by {@code HoodieWriteCommitCallbackUtil}. Unlike Hudi's client, which only logs a refusal, it returns the answer.
 */
public final class CommitCallbackSender {
  /** The header of Hudi's callback key ({@code HoodieWriteCommitHttpCallbackClient.HEADER_KEY_API_KEY}). */
  public static final String KEY_HEADER = "HUDI-CALLBACK-KEY";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI endpoint;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public CommitCallbackSender(int port) {
    this.endpoint = URI.create("http://127.0.0.1:" + port + "/v1/hoodie/commit-callback");
  }

  /** The daemon's answer: its status and JSON body (empty when it sent none). */
  public record Answer(int status, Map<String, Object> body) {
    public Answer {
      Objects.requireNonNull(body, "body is null");
    }
  }

  /** Hudi's message body for a delta commit {@code commitTime} of the table at {@code basePath}, no write stats. */
  public static String deltaCommitMessage(String commitTime, String tableName, String basePath) {
    HoodieWriteStat stat = new HoodieWriteStat();
    stat.setPartitionPath("p0");
    stat.setFileId("00000000-0000-0000-0000-000000000000-0");
    stat.setNumWrites(1);
    return HoodieWriteCommitCallbackUtil.convertToJsonString(new HoodieWriteCommitCallbackMessage(commitTime,
        tableName, basePath, List.of(stat), Option.of("deltacommit"), Option.of(Map.of("schema", "{}"))));
  }

  /** POSTs {@code body} with {@code key} in {@code HUDI-CALLBACK-KEY}, or no such header when {@code key} is null. */
  public Answer send(String key, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json; charset=UTF-8")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header(KEY_HEADER, key);
    }
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      Map<String, Object> answer = Map.of();
      if (!response.body().isBlank() && response.body().trim().startsWith("{")) {
        answer = JSON.readValue(response.body(), new TypeReference<Map<String, Object>>() {
        });
      }
      return new Answer(response.statusCode(), answer);
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + endpoint, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
