package io.huditsd.testing.s3;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TestS3MockServer {
  private final HttpClient http = HttpClient.newHttpClient();

  /** What the S3 storage lock relies on: a create that fails when the key exists, a replace that needs the ETag. */
  @Test
  void conditionalPutsAreHonoured(@TempDir Path dir) throws Exception {
    try (S3MockServer server = S3MockServer.start(dir.resolve("s3"), "lake")) {
      URI key = URI.create(server.endpoint() + "/lake/.hoodie/.locks/table_lock.json");
      assertThat(put(key, "If-None-Match", "*", "one").statusCode()).isEqualTo(200);
      assertThat(put(key, "If-None-Match", "*", "two").statusCode()).isEqualTo(412);
      String etag = http.send(HttpRequest.newBuilder(key).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.discarding()).headers().firstValue("ETag").orElseThrow();
      assertThat(put(key, "If-Match", "\"not-the-etag\"", "three").statusCode()).isEqualTo(412);
      assertThat(put(key, "If-Match", etag, "four").statusCode()).isEqualTo(200);
      assertThat(http.send(HttpRequest.newBuilder(key).GET().build(), HttpResponse.BodyHandlers.ofString()).body())
          .isEqualTo("four");

      // Through the proxy playing a store that ignores conditional writes, the same requests all succeed.
      try (ThrottlingProxy proxy = ThrottlingProxy.start(server.endpoint())) {
        proxy.dropConditionalHeaders(true);
        URI viaProxy = URI.create(proxy.endpoint() + "/lake/.hoodie/.locks/table_lock.json");
        assertThat(put(viaProxy, "If-None-Match", "*", "five").statusCode()).as("a create of an existing key")
            .isEqualTo(200);
        assertThat(put(viaProxy, "If-Match", "\"not-the-etag\"", "six").statusCode()).as("a write with a wrong ETag")
            .isEqualTo(200);
        proxy.dropConditionalHeaders(false);
        assertThat(put(viaProxy, "If-None-Match", "*", "seven").statusCode()).as("forwarded again")
            .isEqualTo(412);
      }
      assertThat(http.send(HttpRequest.newBuilder(key).GET().build(), HttpResponse.BodyHandlers.ofString()).body())
          .isEqualTo("six");
    }
  }

  private HttpResponse<String> put(URI key, String header, String value, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(key).header(header, value).PUT(HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
