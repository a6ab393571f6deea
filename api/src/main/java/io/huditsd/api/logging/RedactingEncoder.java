package io.huditsd.api.logging;

import ch.qos.logback.access.common.spi.IAccessEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * Wraps an appender's encoder and redacts what it produced, whatever the layout (pattern, JSON, access log) and
 * whatever part of the line (message, exception, MDC, request headers) carried the credential. Request-log events
 * are handed to the layout with their credential headers redacted first ({@link RedactedAccessEvent}).
 */
final class RedactingEncoder<E> extends EncoderBase<E> {
  private final Encoder<E> delegate;
  private final LogRedactor redactor;
  private final Charset charset;

  RedactingEncoder(Encoder<E> delegate, LogRedactor redactor) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.redactor = requireNonNull(redactor, "redactor is null");
    this.charset = charsetOf(delegate);
    setContext(delegate.getContext());
    start();
  }

  /** The charset the delegate encodes text with, as LayoutWrappingEncoder decides it. */
  private static Charset charsetOf(Encoder<?> encoder) {
    if (encoder instanceof LayoutWrappingEncoder<?> layoutEncoder) {
      return layoutEncoder.getCharset() == null ? Charset.defaultCharset() : layoutEncoder.getCharset();
    }
    return StandardCharsets.UTF_8;
  }

  Encoder<E> delegate() {
    return delegate;
  }

  @Override
  public byte[] headerBytes() {
    return redact(delegate.headerBytes());
  }

  @Override
  @SuppressWarnings("unchecked")
  public byte[] encode(E event) {
    E view = event instanceof IAccessEvent access ? (E) RedactedAccessEvent.of(access) : event;
    return redact(delegate.encode(view));
  }

  @Override
  public byte[] footerBytes() {
    return redact(delegate.footerBytes());
  }

  private byte[] redact(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return bytes;
    }
    String text = new String(bytes, charset);
    String redacted = redactor.redact(text);
    return redacted == text ? bytes : redacted.getBytes(charset);
  }

  @Override
  public void stop() {
    delegate.stop();
    super.stop();
  }
}
