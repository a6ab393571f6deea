package io.huditsd.api.logging;

import ch.qos.logback.access.common.spi.IAccessEvent;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * A request-log event whose credential headers read as {@link LogRedactor#MARKER}. A request log format prints a
 * header's value without its name ({@code %i{Authorization}}), so no rule on the written line can tell it apart;
 * the event is redacted before the layout reads it.
 */
final class RedactedAccessEvent implements InvocationHandler {
  /** Request headers that carry credentials, by lower-case name. */
  static final Set<String> SECRET_HEADERS = Set.of("authorization", "proxy-authorization", "hudi-callback-key");

  private static final String NOT_AVAILABLE = "-";

  private final IAccessEvent event;

  private RedactedAccessEvent(IAccessEvent event) {
    this.event = requireNonNull(event, "event is null");
  }

  static IAccessEvent of(IAccessEvent event) {
    return (IAccessEvent) Proxy.newProxyInstance(IAccessEvent.class.getClassLoader(),
        new Class<?>[] {IAccessEvent.class}, new RedactedAccessEvent(event));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getName().equals("getRequestHeader") && args != null && args.length == 1
        && args[0] instanceof String name) {
      return redacted(name, event.getRequestHeader(name));
    }
    if (method.getName().equals("getRequestHeaderMap") && (args == null || args.length == 0)) {
      Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      event.getRequestHeaderMap().forEach((name, value) -> headers.put(name, redacted(name, value)));
      return headers;
    }
    try {
      return method.invoke(event, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static String redacted(String name, String value) {
    if (value == null || value.equals(NOT_AVAILABLE) || !SECRET_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
      return value;
    }
    return LogRedactor.MARKER;
  }
}
