package io.huditsd.it;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.HeadlessChromium;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The web console in a real headless Chromium against the packaged daemon on a real MOR table a writer updates: the
 * tables page shows the backlog the API reports, and follows it after a writer commit and after a compaction the
 * console itself scheduled (dry run first, refused without the token, done with it); strings from the table's
 * configuration are shown as text, never run; the pages load under their Content-Security-Policy without a
 * violation. Writes screenshots of the tables page and of a table page to {@code target/console-screenshots}
 * (docs/img has the committed ones).
 */
class ConsoleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "console_mor";
  private static final String TOKEN = "console-it-token";
  /** A value the table page shows in its effective policy: it must appear as these characters, not as markup. */
  private static final String HOSTILE = "<img src=x onerror=\"window.__tsdXss=1\"><script>window.__tsdXss=2</script>";

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theConsoleShowsAndActsOnARealTable() throws Exception {
    Path work = Tsd.workDirectory("ConsoleIT");
    Path basePath = work.resolve(TABLE);
    int port = DaemonApi.freePort();
    int adminPort = DaemonApi.freePort();
    Path tokenFile = work.resolve("token");
    Files.writeString(tokenFile, TOKEN + "\n");
    Path config = work.resolve("tsd.yml");
    Path screenshots = Path.of(System.getProperty("tsd.it.work", "target/it-work")).getParent()
        .resolve("console-screenshots");
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9,
        TrackedTable.MOR_WRITER_KEYS)) {
      table.insert(rows(0, 300, 1_000, "v1"));
      table.upsert(rows(0, 100, 2_000, "v2"));
      Files.writeString(config, configuration(basePath, port, adminPort, tokenFile));
      try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString());
           HeadlessChromium chromium = HeadlessChromium.start(work.resolve("chromium"), 1400, 900)) {
        String base = "http://localhost:" + port;
        long before = await("the daemon's first changed poll; its log " + daemon.logs() + ".out")
            .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
            .until(() -> unscheduledBytes(base), bytes -> bytes != null && bytes > 0);

        assertSecurityHeaders(base);
        ChromeDriver driver = chromium.driver();
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
        // The pages re-render their tables on every refresh: an element found a moment ago may be gone by the next
        // call, which only means "look again" (CI saw a StaleElementReferenceException in the tables page's wait).
        wait.ignoring(StaleElementReferenceException.class);

        // The tables page lists the table with the backlog the API reports.
        driver.get(base + "/");
        assertThat(wait.until(shownBytes(TABLE, "logFileUnscheduledBytes", before))).isTrue();

        // A writer commit adds log bytes: the API sees them at the next poll, the page after a refresh.
        table.upsert(rows(100, 200, 3_000, "v3"));
        long afterCommit = await("unscheduled log bytes after the writer's commit")
            .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
            .until(() -> unscheduledBytes(base), bytes -> bytes != null && bytes > before);
        assertThat(wait.until(refreshedToReportedBytes(base, afterCommit))).isTrue();
        chromium.screenshot(screenshots.resolve("console-tables.png"));

        // A table page: an action without the token shows the API's 401 message.
        driver.findElement(By.linkText(TABLE)).click();
        wait.until(d -> !d.findElements(By.cssSelector("#table-facts dd")).isEmpty());
        driver.findElement(By.id("schedule-preview")).click();
        WebElement message = driver.findElement(By.id("message"));
        wait.until(d -> message.isDisplayed() && message.getText().startsWith("401"));
        assertThat(message.getText()).contains("Authorization");

        // With the token the dry run shows the plan, naming the file groups the API lists, and writes nothing.
        driver.findElement(By.id("token")).sendKeys(TOKEN);
        driver.findElement(By.id("token-save")).click();
        assertThat(driver.getCurrentUrl()).doesNotContain(TOKEN);
        assertThat(driver.executeScript("return window.sessionStorage.getItem('tsd.token')")).isEqualTo(TOKEN);
        wait.until(d -> !d.findElements(By.cssSelector("#table-facts dd")).isEmpty());
        driver.findElement(By.id("schedule-preview")).click();
        WebElement plan = wait.until(d -> d.findElements(By.id("schedule-plan")).stream().findFirst().orElse(null));
        String fileId = String.valueOf(fileGroups(base).get(0).get("File_ID"));
        assertThat(plan.getText()).contains("\"service\": \"compaction\"", "\"state\": \"preview\"");
        assertThat(fileGroups(base)).extracting(row -> String.valueOf(row.get("File_ID")))
            .anySatisfy(id -> assertThat(plan.getText()).contains(id));
        assertThat(fileId).isNotBlank();
        assertThat(pendingCompactions(base)).as("a dry run writes no plan").isZero();
        chromium.screenshot(screenshots.resolve("console-table.png"));

        // Confirmed, the plan is written and run; the tables page follows the backlog down.
        driver.findElement(By.id("schedule-confirm")).click();
        wait.until(d -> message.isDisplayed() && message.getText().startsWith("scheduled "));
        await("the console's compaction ran; daemon log " + daemon.logs() + ".out")
            .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
            .until(() -> succeededCompactions(base) == 1 && pendingCompactions(base) == 0
                && unscheduledBytes(base) < afterCommit);
        long afterCompaction = unscheduledBytes(base);
        driver.get(base + "/console/#/tables");
        assertThat(wait.until(shownBytes(TABLE, "logFileUnscheduledBytes", afterCompaction))).isTrue();

        // Strings from the table's configuration are text on the page, and none of them ran. The page shows why
        // nothing is scheduled once a poll after the compaction decided it: the trigger of 1000 delta commits.
        await("the compaction's decision after the console's run").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(250)).until(() -> compactionDecision(base).equals("below-trigger"));
        driver.get(base + "/console/#/table/" + TABLE);
        wait.until(d -> d.findElement(By.id("table-policy")).getText().contains("hoodie.metrics.reporter.metricsname.prefix"));
        assertThat(driver.findElement(By.id("table-policy")).getText()).contains(HOSTILE);
        assertThat(driver.findElement(By.id("table-decisions")).getText()).contains("compaction: below-trigger");
        assertThat(driver.findElements(By.cssSelector("#table-policy img, #table-policy script"))).isEmpty();
        assertThat(driver.executeScript("return window.__tsdXss === undefined")).isEqualTo(true);
        wait.until(d -> !d.findElements(By.cssSelector("#table-chart canvas")).isEmpty());
        chromium.screenshot(screenshots.resolve("console-table-after.png"));

        // Pause and resume from the page, with the token of this tab.
        driver.findElement(By.id("action-pause")).click();
        wait.until(d -> message.isDisplayed() && message.getText().equals("pause: done"));
        await("paused through the console").atMost(Duration.ofSeconds(10))
            .until(() -> Boolean.TRUE.equals(summary(base).get("paused")));
        wait.until(d -> "Resume".equals(d.findElement(By.id("action-pause")).getText()));
        driver.findElement(By.id("action-pause")).click();
        await("resumed through the console").atMost(Duration.ofSeconds(10))
            .until(() -> Boolean.FALSE.equals(summary(base).get("paused")));

        // The runs page lists the compaction with its table, result and figures.
        driver.get(base + "/console/#/runs");
        wait.until(d -> d.findElement(By.id("runs-summary")).getText().contains("running"));
        wait.until(d -> d.findElements(By.cssSelector("#runs-table .tabulator-row")).stream()
            .anyMatch(row -> row.getText().contains(TABLE) && row.getText().contains("succeeded")
                && row.getText().contains("compaction")));

        // Every library ran under the Content-Security-Policy: no violation, no script error.
        driver.get(base + "/console/swagger.html");
        wait.until(d -> !d.findElements(By.cssSelector(".opblock")).isEmpty());
        assertThat(chromium.consoleMessages()).noneMatch(line -> line.contains("Content Security Policy")
            || line.contains("Uncaught"));
      }
    }
  }

  private void assertSecurityHeaders(String base) throws IOException, InterruptedException {
    HttpResponse<String> root = http.send(HttpRequest.newBuilder(URI.create(base + "/")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(root.statusCode()).as("/ redirects to the console").isEqualTo(302);
    assertThat(root.headers().firstValue("Location")).hasValue("/console/");
    HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/console/")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy")).get().asString()
        .contains("script-src 'self';", "default-src 'none'").doesNotContain("unsafe");
    assertThat(page.body()).as("no inline script").doesNotContainPattern("<script(?![^>]*\\bsrc=)");
    HttpResponse<String> escape = http.send(HttpRequest.newBuilder(URI.create(base + "/console/lib/uplot/%2e%2e/x"))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(escape.statusCode()).as("nothing outside the console's files").isIn(400, 404);
  }

  /** Waits until the table's row shows {@code bytes} in the column of {@code field}. */
  private static Function<WebDriver, Boolean> shownBytes(String tableId, String field, long bytes) {
    return driver -> driver.findElements(By.cssSelector(".tabulator-row")).stream()
        .filter(row -> !row.findElements(By.linkText(tableId)).isEmpty())
        .flatMap(row -> row.findElements(By.cssSelector("[tabulator-field='" + field + "'] span")).stream())
        .anyMatch(cell -> String.valueOf(bytes).equals(cell.getDomAttribute("data-bytes")));
  }

  /**
   * Whether the tables page, refreshed, shows the unscheduled log bytes the API reports, at least {@code atLeast}.
   * The API's figure is read again before each refresh: a poll may publish the table's backlog anew between two
   * reads (CI once saw the page keep, for 30 s, a figure other than the one read just before its only refresh).
   */
  private Function<WebDriver, Boolean> refreshedToReportedBytes(String base, long atLeast) {
    return driver -> {
      Long reported = unscheduledBytes(base);
      if (reported != null && reported >= atLeast
          && shownBytes(TABLE, "logFileUnscheduledBytes", reported).apply(driver)) {
        return true;
      }
      driver.findElement(By.id("tables-refresh")).click();
      return false;
    };
  }

  /** The compaction service's last decision, as the table's REST view gives it. */
  @SuppressWarnings("unchecked")
  private String compactionDecision(String base) {
    Map<String, Object> services = (Map<String, Object>) get(base + "/api/v1/tables/" + TABLE).get("services");
    Map<String, Object> compaction = (Map<String, Object>) services.get("compaction");
    Map<String, Object> decision = (Map<String, Object>) compaction.get("lastDecision");
    return decision == null ? "" : String.valueOf(decision.get("decision"));
  }

  private Map<String, Object> summary(String base) {
    Map<String, Object> page = get(base + "/api/v1/table-list?q=" + TABLE);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> items = (List<Map<String, Object>>) page.get("items");
    return items.stream().filter(row -> TABLE.equals(row.get("id"))).findFirst().orElseThrow();
  }

  private Long unscheduledBytes(String base) {
    Map<String, Object> row = summary(base);
    return Boolean.TRUE.equals(row.get("polled")) ? ((Number) row.get("logFileUnscheduledBytes")).longValue() : null;
  }

  private int pendingCompactions(String base) {
    return ((Number) summary(base).get("pendingCompactions")).intValue();
  }

  private long succeededCompactions(String base) {
    return list(base + "/api/v1/tables/" + TABLE + "/runs").stream()
        .filter(run -> "compaction".equals(run.get("service")) && "succeeded".equals(run.get("status"))).count();
  }

  private List<Map<String, Object>> fileGroups(String base) {
    return list(base + "/api/v1/tables/" + TABLE + "/file-groups");
  }

  private Map<String, Object> get(String url) {
    return JSON.convertValue(read(url), new TypeReference<Map<String, Object>>() {
    });
  }

  private List<Map<String, Object>> list(String url) {
    return JSON.convertValue(read(url), new TypeReference<List<Map<String, Object>>>() {
    });
  }

  private Object read(String url) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).GET()
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("GET %s: %s", url, response.body()).isEqualTo(200);
      return JSON.readValue(response.body(), Object.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Compaction only when asked (a trigger the test never reaches), the token from a file, a 1 s poll. */
  private static String configuration(Path basePath, int port, int adminPort, Path tokenFile) {
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction]
        auth:
          tokenFile: %s
        tables:
          - path: %s
            id: %s
            hoodie:
              hoodie.compact.inline.max.delta.commits: "1000"
              hoodie.metrics.reporter.metricsname.prefix: '%s'
        """.formatted(tokenFile, basePath, TABLE, HOSTILE.replace("'", "''"));
  }
}
