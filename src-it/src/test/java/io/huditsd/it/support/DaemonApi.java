package io.huditsd.it.support;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The daemon's REST API as a test reads it: {@code GET /api/v1/runs} and {@code GET /api/v1/tables}. */
public final class DaemonApi {
  private static final ObjectMapper JSON = new ObjectMapper();

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
    return get("/api/v1/runs");
  }

  public List<Map<String, Object>> tables() {
    return get("/api/v1/tables");
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

  private List<Map<String, Object>> get(String path) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(5)).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readValue(response.body(), new TypeReference<>() {
      });
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " on port " + port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
