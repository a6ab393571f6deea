package io.huditsd.api.logging;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Removes credentials from a formatted log line: the values of {@code Authorization}, {@code Proxy-Authorization}
 * and {@code HUDI-CALLBACK-KEY} headers (and of Hudi's {@code hoodie.write.commit.callback.http.api.key}), anything
 * that follows {@code Bearer}, every occurrence of the daemon's own token, and the raw request bytes that Jetty's
 * DEBUG logs print ({@code {...<<<GET / HTTP/1.1\r\nAuthorization: Bear...>>>...}}), which can hold any fragment of
 * a header, cut where no rule can recognize it. Over-redacting a log line is acceptable; leaking a token is not.
 */
public final class LogRedactor {
  public static final String MARKER = "[REDACTED]";

  /** Not a value redacted already, whether or not its opening bracket was taken as part of a separator. */
  private static final String NOT_REDACTED = "(?!\\[?\\QREDACTED]\\E)";

  /**
   * A Jetty buffer dump: {@code BufferUtil.toDetailString} ({@code ]={consumed<<<remaining>>>stale}}, each part cut
   * to a few dozen bytes shown as up to 4 characters each) and {@code RetainableByteBuffer.toString}
   * ({@code {<<<...>>>}}, {@code {<<~...<...>>>}}). The braces are optional so that a cut dump is still caught.
   */
  private static final Pattern BUFFER_DUMP = Pattern.compile("(?s)(?:\\{.{0,100}?)?<<[<~].{0,260}>>>(?:.{0,100}\\})?");
  private static final String BUFFER_REPLACEMENT = Matcher.quoteReplacement("{<<<" + MARKER + ">>>}");

  /** A header (or key) name, how it is joined to its value in text, JSON or a map, and the value. */
  private static final Pattern SECRET_HEADER = Pattern.compile(
      "(?i)(authorization|hudi-callback-key|callback\\.http\\.api\\.key)"
          + "(\"?'?\\s*[:=]\\s*\"?'?\\[?|\\],\\s*valueString=\\[)" // the second is HttpParser's DEBUG line
          + NOT_REDACTED + "([^\\r\\n\"'\\]},;)]+)");
  private static final String SECRET_HEADER_REPLACEMENT = "$1$2" + Matcher.quoteReplacement(MARKER);

  /** A bearer credential on its own (Jetty logs header values apart from their names); prose has no 8-char word. */
  private static final Pattern BEARER = Pattern.compile(
      "(?i)\\b(bearer\\s+)" + NOT_REDACTED + "(?=[^\\s\"',;\\]})]{8})[^\\s\"',;\\]})]+");
  private static final String BEARER_REPLACEMENT = "$1" + Matcher.quoteReplacement(MARKER);

  private final List<String> secrets;

  /** @param secrets values redacted wherever they appear (the daemon's token); blank ones are ignored */
  public LogRedactor(List<String> secrets) {
    this.secrets = requireNonNull(secrets, "secrets is null").stream().filter(secret -> !secret.isBlank()).toList();
  }

  /** The line without credentials; the same instance when there was nothing to remove. */
  public String redact(String line) {
    if (line == null || line.isEmpty()) {
      return line;
    }
    String redacted = line;
    if (redacted.contains("<<")) {
      redacted = BUFFER_DUMP.matcher(redacted).replaceAll(BUFFER_REPLACEMENT);
    }
    redacted = replace(SECRET_HEADER, redacted, SECRET_HEADER_REPLACEMENT);
    redacted = replace(BEARER, redacted, BEARER_REPLACEMENT);
    // Last, so that the rules above see the whole header value rather than a marker inside it.
    for (String secret : secrets) {
      if (redacted.contains(secret)) {
        redacted = redacted.replace(secret, MARKER);
      }
    }
    return redacted;
  }

  private static String replace(Pattern pattern, String text, String replacement) {
    Matcher matcher = pattern.matcher(text);
    return matcher.find() ? matcher.replaceAll(replacement) : text;
  }
}
