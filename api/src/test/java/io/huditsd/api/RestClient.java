package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for tests against a real running daemon. */
final class RestClient {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  RestClient(String base, String token) {
    this.base = base;
    this.token = token;
  }

  /** A status and a body, with the body parsed as JSON when it is JSON. */
  record Reply(int status, String body) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("Not JSON (status " + status + "): " + body, e);
      }
    }
  }

  Reply get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), null);
  }

  Reply post(String path, String json) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).POST(body(json)).header("Content-Type",
        "application/json"), token);
  }

  Reply postWithToken(String path, String json, String bearer) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).POST(body(json)).header("Content-Type",
        "application/json"), bearer);
  }

  Reply delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE(), token);
  }

  private static HttpRequest.BodyPublisher body(String json) {
    return json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json);
  }

  private Reply send(HttpRequest.Builder request, String bearer) {
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    try {
      HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(60)).build(),
          HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
