package io.huditsd.testing.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault injector in front of an S3 server, on loopback: it answers {@code 503 SlowDown} (S3's throttling error,
 * with S3's XML error body) to the next N requests, or to a fraction of them, and forwards every other request as it
 * came (headers and body; S3Mock does not check signatures, so the Host header may change). Point S3A's
 * {@code fs.s3a.endpoint} at {@link #endpoint()} instead of the server's.
 *
 * <p>It can also play a store that ignores conditional writes ({@link #dropConditionalHeaders}), as S3Proxy 2.6 on
 * its filesystem backend does: every PUT is then a plain PUT, answered 200 whatever the object's state.
 */
public final class ThrottlingProxy implements AutoCloseable {
  /** Headers java.net.http sets itself or refuses, and hop-by-hop ones. */
  private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "content-length", "expect", "upgrade",
      "transfer-encoding", "keep-alive", "date");
  /** The conditions of a conditional write, dropped by {@link #dropConditionalHeaders}. */
  private static final Set<String> CONDITIONAL = Set.of("if-none-match", "if-match");
  private static final byte[] SLOW_DOWN = """
      <?xml version="1.0" encoding="UTF-8"?>
      <Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>\
      <RequestId>tsd-throttling-proxy</RequestId><HostId>tsd-throttling-proxy</HostId></Error>"""
      .getBytes(StandardCharsets.UTF_8);

  private final URI target;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(8, runnable -> {
    Thread thread = new Thread(runnable, "throttling-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final AtomicLong throttleNext = new AtomicLong();
  private final AtomicLong throttled = new AtomicLong();
  private final AtomicLong forwarded = new AtomicLong();
  private volatile double fraction;
  private volatile boolean dropConditional;
  private final SplittableRandom random;

  private ThrottlingProxy(URI target, long seed) throws IOException {
    this.target = target;
    this.random = new SplittableRandom(seed);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext("/", this::handle);
    server.setExecutor(threads);
    server.start();
  }

  /** Starts a proxy on a free loopback port that forwards to {@code targetEndpoint} ({@code http://host:port}). */
  public static ThrottlingProxy start(String targetEndpoint) {
    Objects.requireNonNull(targetEndpoint, "targetEndpoint is null");
    try {
      return new ThrottlingProxy(URI.create(targetEndpoint), 42);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the throttling proxy", e);
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The next {@code requests} requests are answered 503 SlowDown. */
  public void throttleNext(long requests) {
    throttleNext.set(requests);
  }

  /** From now on this fraction of requests (0 to 1, drawn from a seeded random) is answered 503 SlowDown. */
  public void throttleFraction(double fraction) {
    if (fraction < 0 || fraction > 1) {
      throw new IllegalArgumentException("fraction must be within [0, 1]: " + fraction);
    }
    this.fraction = fraction;
  }

  /**
   * From now on, with {@code drop}, the {@code If-None-Match} and {@code If-Match} request headers are not forwarded:
   * the server behind sees plain writes, as a store that ignores conditional writes treats them.
   */
  public void dropConditionalHeaders(boolean drop) {
    this.dropConditional = drop;
  }

  /** Requests answered 503 SlowDown so far. */
  public long throttled() {
    return throttled.get();
  }

  /** Requests forwarded to the server so far. */
  public long forwarded() {
    return forwarded.get();
  }

  private boolean throttleThis() {
    if (throttleNext.getAndUpdate(left -> left > 0 ? left - 1 : 0) > 0) {
      return true;
    }
    double share = fraction;
    if (share == 0) {
      return false;
    }
    synchronized (random) {
      return random.nextDouble() < share;
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      if (throttleThis()) {
        throttled.incrementAndGet();
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        if (head) {
          exchange.sendResponseHeaders(503, -1);
        } else {
          exchange.sendResponseHeaders(503, SLOW_DOWN.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(SLOW_DOWN);
          }
        }
        return;
      }
      forwarded.incrementAndGet();
      forward(exchange, body, head);
    }
  }

  private void forward(HttpExchange exchange, byte[] body, boolean head) throws IOException {
    URI uri = target.resolve(exchange.getRequestURI().getRawPath()
        + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2))
        .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    boolean dropping = dropConditional;
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (!NOT_FORWARDED.contains(name) && !(dropping && CONDITIONAL.contains(name))) {
        header.getValue().forEach(value -> request.header(header.getKey(), value));
      }
    }
    HttpResponse<byte[]> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.sendResponseHeaders(500, -1);
      return;
    }
    response.headers().map().forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      // Content-Length is set by sendResponseHeaders, except for HEAD, whose length S3A reads as the object's.
      if (!NOT_FORWARDED.contains(lower) || (head && "content-length".equals(lower))) {
        exchange.getResponseHeaders().put(name, values);
      }
    });
    byte[] content = response.body();
    if (head || content.length == 0) {
      exchange.sendResponseHeaders(response.statusCode(), -1);
    } else {
      exchange.sendResponseHeaders(response.statusCode(), content.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(content);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
