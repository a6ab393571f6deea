package io.huditsd.api.console;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Serves the web console's static files: its own pages under {@code /console/} and the WebJars it uses under
 * {@code /console/lib/NAME/}; {@code /} redirects to {@code /console/}. Only files, never data: every figure the
 * pages show comes from the REST API through the browser, with the token the user entered, so the API's bearer token
 * guards the console's data exactly as it guards any other client's. Every answer carries a strict
 * Content-Security-Policy: scripts and styles from this origin only (no inline script), requests to this origin only.
 */
public final class ConsoleServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** The policy of every console answer; {@code style-src} allows no inline style either. */
  public static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
      + "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
      + "frame-ancestors 'none'";

  private static final String OWN = "io/huditsd/console/";
  /** A console file's name: no directories, no dot files, so nothing but the console's own files is served. */
  private static final Pattern OWN_FILE = Pattern.compile("[a-z0-9][a-z0-9-]*\\.(html|js|css|png|svg)");
  /** A path inside a WebJar: segments without "..", nothing hidden. */
  private static final Pattern LIB_PATH = Pattern.compile("([A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*");
  private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
      "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8", "png", "image/png",
      "svg", "image/svg+xml", "txt", "text/plain; charset=utf-8", "map", "application/json");

  private final transient WebJars webJars;

  public ConsoleServlet(WebJars webJars) {
    this.webJars = requireNonNull(webJars, "webJars is null");
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String servletPath = request.getServletPath();
    String path = Optional.ofNullable(request.getPathInfo()).orElse("");
    if (!servletPath.startsWith("/console")) {
      // The application root: the console lives one level down so that its relative links resolve the same way
      // whether or not the address ends with a slash.
      response.sendRedirect("/console/");
      return;
    }
    Optional<String> resource = resource(path);
    if (resource.isEmpty()) {
      notFound(response);
      return;
    }
    try (InputStream in = ConsoleServlet.class.getClassLoader().getResourceAsStream(resource.get())) {
      if (in == null) {
        notFound(response);
        return;
      }
      String name = resource.get();
      String extension = name.substring(name.lastIndexOf('.') + 1);
      secure(response);
      response.setContentType(TYPES.getOrDefault(extension, "application/octet-stream"));
      // Libraries are versioned in their path and never change; the console's own files change with the daemon.
      response.setHeader("Cache-Control", name.startsWith(OWN) ? "no-cache" : "public, max-age=86400");
      try (OutputStream out = response.getOutputStream()) {
        in.transferTo(out);
      }
    }
  }

  /** The class-path resource a console path names, if it names one the console may serve. */
  Optional<String> resource(String path) {
    if (path.isEmpty() || path.equals("/")) {
      return Optional.of(OWN + "index.html");
    }
    if (path.startsWith("/lib/")) {
      String rest = path.substring("/lib/".length());
      int slash = rest.indexOf('/');
      if (slash < 0 || !LIB_PATH.matcher(rest.substring(slash + 1)).matches()) {
        return Optional.empty();
      }
      return webJars.resource(rest.substring(0, slash), rest.substring(slash + 1));
    }
    String name = path.substring(1);
    return OWN_FILE.matcher(name).matches() ? Optional.of(OWN + name) : Optional.empty();
  }

  private static void secure(HttpServletResponse response) {
    response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("X-Frame-Options", "DENY");
  }

  private static void notFound(HttpServletResponse response) throws IOException {
    secure(response);
    response.setStatus(HttpServletResponse.SC_NOT_FOUND);
    response.setContentType("application/json");
    response.getOutputStream().write("{\"code\":404,\"message\":\"No such console file\"}".getBytes(
        StandardCharsets.UTF_8));
  }
}
