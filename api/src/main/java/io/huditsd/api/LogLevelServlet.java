package io.huditsd.api;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.errors.ErrorMessage;
import io.huditsd.api.logging.TimedLogLevels;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * The admin port's {@code POST /tasks/log-level?logger=NAME&level=LEVEL&duration=PT2M}, in place of Dropwizard's
 * task of the same path and parameters: {@code logger} may repeat, no {@code level} means the logger's own level is
 * removed (it inherits), {@code duration} (ISO-8601) puts the level from before back when it ends (see
 * {@link TimedLogLevels}). A request it cannot carry out changes nothing and answers 400 with the JSON error body
 * of the REST API, where Dropwizard's task took a misspelt level for DEBUG and answered its failures 500 in text.
 */
final class LogLevelServlet extends HttpServlet {
  static final String PATH = "/tasks/log-level";
  private static final Set<String> PARAMETERS = Set.of("logger", "level", "duration");
  private static final long serialVersionUID = 1L;

  private final transient TimedLogLevels levels;
  private final transient ObjectMapper json;

  LogLevelServlet(TimedLogLevels levels, ObjectMapper json) {
    this.levels = requireNonNull(levels, "levels is null");
    this.json = requireNonNull(json, "json is null");
  }

  /** What a request asks for, checked whole before any logger changes. */
  private record Change(List<String> loggers, Optional<Level> level, Optional<Duration> duration) {
  }

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Change change;
    try {
      change = parse(request.getParameterMap());
      for (String logger : change.loggers()) {
        TimedLogLevels.checkChange(logger, change.level());
      }
    } catch (IllegalArgumentException e) {
      refuse(response, 400, e.getMessage());
      return;
    }
    response.setContentType("text/plain;charset=UTF-8");
    PrintWriter output = response.getWriter();
    for (String logger : change.loggers()) {
      levels.change(logger, change.level(), change.duration());
      // Dropwizard's task's words, which scripts may read.
      output.printf("Configured logging level for %s to %s%s%n", logger, change.level().orElse(null),
          change.duration().map(duration -> " for " + duration.toMillis() + " milliseconds").orElse(""));
    }
    output.flush();
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setHeader("Allow", "POST");
    refuse(response, 405, "Change log levels with POST " + PATH + "?logger=NAME&level=LEVEL[&duration=PT5M]");
  }

  private static Change parse(Map<String, String[]> parameters) {
    Set<String> unknown = new TreeSet<>(parameters.keySet());
    unknown.removeAll(PARAMETERS);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("Unknown parameter(s) " + String.join(", ", unknown)
          + ": " + PATH + " takes logger (one or more), level and duration");
    }
    List<String> loggers = List.of(parameters.getOrDefault("logger", new String[0]));
    if (loggers.isEmpty() || loggers.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("Name the logger(s) to change: logger=NAME (ROOT for the root logger)");
    }
    return new Change(loggers, single(parameters, "level").map(LogLevelServlet::level),
        single(parameters, "duration").map(LogLevelServlet::duration));
  }

  private static Optional<String> single(Map<String, String[]> parameters, String name) {
    String[] values = parameters.get(name);
    if (values == null || values.length == 0) {
      return Optional.empty();
    }
    if (values.length > 1) {
      throw new IllegalArgumentException("Give " + name + " once; it was given " + values.length + " times");
    }
    return Optional.of(values[0]);
  }

  /** Logback's own parsing takes anything it does not know for DEBUG. */
  private static Level level(String name) {
    Level level = Level.toLevel(name, null);
    if (level == null) {
      throw new IllegalArgumentException("Unknown level '" + name
          + "': use one of OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL, or leave level out to inherit the parent's");
    }
    return level;
  }

  private static Duration duration(String text) {
    Duration duration;
    try {
      duration = Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("duration '" + text + "' is not an ISO-8601 duration such as PT30S or PT5M",
          e);
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration '" + text + "' must be positive, such as PT30S or PT5M");
    }
    return duration;
  }

  private void refuse(HttpServletResponse response, int status, String message) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    json.writeValue(response.getOutputStream(), new ErrorMessage(status, message));
  }
}
