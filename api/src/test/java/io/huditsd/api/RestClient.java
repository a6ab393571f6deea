package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

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
  record Reply(int status, String body, String contentType) {
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

  /** A GET with an Accept header: what a scraper sends to choose the exposition format. */
  Reply getAccepting(String path, String accept) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET().header("Accept", accept), null);
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

  /**
   * Sends {@code method target} as written, over a plain socket: HTTP clients normalize or refuse the paths (an
   * encoded {@code /}, {@code %00}) that Jetty rejects before the request reaches Jersey.
   */
  Reply raw(String method, String target, String extraHeaders) {
    URI uri = URI.create(base);
    try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write((method + " " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nConnection: close\r\n"
          + extraHeaders + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int headersEnd = response.indexOf("\r\n\r\n");
      String head = response.substring(0, headersEnd);
      String body = response.substring(headersEnd + 4);
      if (head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked")) {
        body = dechunk(body);
      }
      String contentType = head.lines().filter(line -> line.toLowerCase(Locale.ROOT).startsWith("content-type:"))
          .map(line -> line.substring("content-type:".length()).trim()).findFirst().orElse("");
      return new Reply(Integer.parseInt(head.split(" ")[1]), body, contentType);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String dechunk(String chunked) {
    StringBuilder body = new StringBuilder();
    int at = 0;
    while (true) {
      int lineEnd = chunked.indexOf("\r\n", at);
      int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
      if (size == 0) {
        return body.toString();
      }
      body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
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
      return new Reply(response.statusCode(), response.body(),
          response.headers().firstValue("Content-Type").orElse(""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
