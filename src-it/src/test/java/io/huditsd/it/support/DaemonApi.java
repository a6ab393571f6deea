package io.huditsd.it.support;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The daemon's REST API as a test reads it: runs, tables and file groups. */
public final class DaemonApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<Map<String, Object>>> LIST = new TypeReference<>() {
  };
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {
  };

  private final int port;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public DaemonApi(int port) {
    this.port = port;
  }

  /** A port that was free a moment ago; the daemon binds it shortly after. */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Queued and running runs, then finished ones, newest first; each a JSON object as a map. */
  public List<Map<String, Object>> runs() {
    return get("/api/v1/runs", LIST);
  }

  public List<Map<String, Object>> tables() {
    return get("/api/v1/tables", LIST);
  }

  /** {@code GET /api/v1/tables/{id}/file-groups}: live file slices, or every slice with {@code allSlices}. */
  public List<Map<String, Object>> fileGroups(String tableId, boolean allSlices) {
    return get("/api/v1/tables/" + tableId + "/file-groups" + (allSlices ? "?all=true" : ""), LIST);
  }

  /**
   * {@code GET /v1/hoodie/service/{action}} with {@code query}, as Hudi's {@code HoodieTableServiceManagerClient}
   * sends it; the daemon's answer as a map.
   */
  public Map<String, Object> tableServiceManagerRequest(String action, Map<String, String> query) {
    StringBuilder path = new StringBuilder("/v1/hoodie/service/").append(action);
    char separator = '?';
    for (Map.Entry<String, String> parameter : query.entrySet()) {
      path.append(separator).append(URLEncoder.encode(parameter.getKey(), StandardCharsets.UTF_8)).append('=')
          .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
      separator = '&';
    }
    return get(path.toString(), OBJECT);
  }

  /** An answer whose status a test checks: the code and the JSON body. */
  public record Reply(int status, Map<String, Object> body) {
  }

  /** {@code DELETE path}, whatever the status. */
  public Reply delete(String path) {
    return send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(5))
        .DELETE().build());
  }

  /** {@code POST path} with a JSON body (none when null), whatever the status. */
  public Reply post(String path, String json) {
    return send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .POST(json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
        .build());
  }

  private Reply send(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body().isBlank() ? Map.of()
          : JSON.readValue(response.body(), OBJECT));
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The Prometheus text of a daemon's admin port. */
  public static String metrics(int adminPort) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + adminPort + "/prometheus"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    try {
      return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new UncheckedIOException("GET /prometheus on port " + adminPort, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private <T> T get(String path, TypeReference<T> type) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(5)).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readValue(response.body(), type);
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " on port " + port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
