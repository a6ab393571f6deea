package io.huditsd.api.logging;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.BufferUtil;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Lines as Jetty, Dropwizard's request log and our own code render credentials, before and after redaction. */
class TestLogRedactor {
  private static final String TOKEN = "Zm9vYmFyLXNlY3JldC10b2tlbi0xMjM0NTY3ODkw";

  private final LogRedactor redactor = new LogRedactor(List.of(TOKEN));
  private final LogRedactor withoutToken = new LogRedactor(List.of());

  @Test
  void headersAsJettyRendersThemLoseTheirValues() {
    HttpField field = new HttpField(HttpHeader.AUTHORIZATION, "Bearer " + TOKEN);
    String parsed = "parsedHeader(" + field + ") header=AUTHORIZATION, headerString=[Authorization], valueString=["
        + field.getValue() + "]";
    assertThat(withoutToken.redact(parsed)).isEqualTo("parsedHeader(Authorization: [REDACTED]) header=AUTHORIZATION, "
        + "headerString=[Authorization], valueString=[[REDACTED]]");

    assertThat(withoutToken.redact("parsedHeader(null) header=null, headerString=[HUDI-CALLBACK-KEY], "
        + "valueString=[k3y-v4lue]")).isEqualTo("parsedHeader(null) header=null, headerString=[HUDI-CALLBACK-KEY], "
        + "valueString=[[REDACTED]]");

    String fields = HttpFields.build().add("Host", "localhost").add(field).add("HUDI-CALLBACK-KEY", "k3y-v4lue")
        .add("Proxy-Authorization", "Basic dXNlcjpwYXNz").toString();
    String redacted = withoutToken.redact(fields);
    assertThat(redacted).contains("Host: localhost", "Authorization: [REDACTED]", "HUDI-CALLBACK-KEY: [REDACTED]",
        "Proxy-Authorization: [REDACTED]").doesNotContain(TOKEN, "k3y-v4lue", "dXNlcjpwYXNz");
  }

  @Test
  void mapsJsonAndHoodieKeysLoseTheirValues() {
    assertThat(withoutToken.redact("{authorization=[Bearer " + TOKEN + "], accept=[*/*]}"))
        .isEqualTo("{authorization=[[REDACTED]], accept=[*/*]}");
    assertThat(withoutToken.redact("{Authorization=[REDACTED], Accept=*/*}"))
        .isEqualTo("{Authorization=[REDACTED], Accept=*/*}");
    assertThat(withoutToken.redact("{\"Authorization\":\"Bearer " + TOKEN + "\",\"Accept\":\"*/*\"}"))
        .isEqualTo("{\"Authorization\":\"[REDACTED]\",\"Accept\":\"*/*\"}");
    assertThat(withoutToken.redact("hoodie.write.commit.callback.http.api.key=s3cret, hoodie.table.name=t"))
        .isEqualTo("hoodie.write.commit.callback.http.api.key=[REDACTED], hoodie.table.name=t");
  }

  @Test
  void jettyBufferDumpsLoseEveryByteBecauseTheyCutHeadersAnywhere() {
    String request = "GET /api/v1/tables HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n";
    ByteBuffer buffer = BufferUtil.allocate(4096);
    BufferUtil.append(buffer, request.getBytes(StandardCharsets.US_ASCII));
    // As HttpParser is partway through: the dump shows the start and the last 24 bytes, a token fragment.
    buffer.position(request.length() - 30);
    String line = "parseNext s=HEADER " + BufferUtil.toDetailString(buffer) + " done";
    assertThat(line).contains(TOKEN.substring(TOKEN.length() - 10));

    String redacted = withoutToken.redact(line);
    assertThat(redacted).startsWith("parseNext s=HEADER ").endsWith("]={<<<[REDACTED]>>>} done");
    for (int from = 0; from + 6 <= TOKEN.length(); from++) {
      assertThat(redacted).doesNotContain(TOKEN.substring(from, from + 6));
    }
  }

  @Test
  void theDaemonsOwnTokenGoesWhereverItAppears() {
    assertThat(redactor.redact("token=" + TOKEN + ";")).isEqualTo("token=[REDACTED];");
    assertThat(redactor.redact("java.lang.IllegalStateException: bad header " + TOKEN))
        .isEqualTo("java.lang.IllegalStateException: bad header [REDACTED]");
    assertThat(redactor.redact("Authorization: Bearer " + TOKEN + ")")).isEqualTo("Authorization: [REDACTED])");
    assertThat(redactor.redact("valueString=[Bearer " + TOKEN + "]")).isEqualTo("valueString=[Bearer [REDACTED]]");
  }

  @Test
  void linesWithoutCredentialsStayAsTheyWere() {
    String line = "INFO  [2026-12-01 10:00:00,000] io.huditsd.api.TsdApplication: REST API is not protected: set "
        + "auth.tokenFile or auth.tokenEnv to require a bearer token for scheduling";
    assertThat(redactor.redact(line)).isSameAs(line);
    assertThat(redactor.redact("127.0.0.1 - - \"GET /ready HTTP/1.1\" 200 3")).isEqualTo(
        "127.0.0.1 - - \"GET /ready HTTP/1.1\" 200 3");
  }
}
