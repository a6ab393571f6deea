import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Opens the console's tables page in Debian's headless Chromium ROUNDS times, each in a fresh tab state, and prints
 * per round: the time from navigation start to the first page of rows on screen (console.js's mark), and the
 * durations of the page's REST calls (Resource Timing). Usage: java -cp SELENIUM ConsoleRender.java URL ROUNDS
 */
public final class ConsoleRender {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int rounds = Integer.parseInt(args[1]);
    Path profile = Files.createTempDirectory("console-render");
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
        "--user-data-dir=" + profile, "--window-size=1400,900");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
    ChromeDriver driver = new ChromeDriver(service, options);
    List<Double> renders = new ArrayList<>();
    try {
      for (int round = 0; round < rounds; round++) {
        driver.get("about:blank");
        driver.get(url);
        long deadline = System.currentTimeMillis() + 30_000;
        Object rendered = null;
        while (rendered == null && System.currentTimeMillis() < deadline) {
          rendered = driver.executeScript("return window.tsdTablesRenderedMs || null");
          if (rendered == null) {
            Thread.sleep(20);
          }
        }
        if (rendered == null) {
          throw new IllegalStateException("no rows rendered within 30 s");
        }
        long rows = (Long) driver.executeScript("return document.querySelectorAll('.tabulator-row').length");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> calls = (List<Map<String, Object>>) driver.executeScript(
            "return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/'))"
                + ".map(e => ({name: e.name.replace(location.origin, ''), ms: e.duration}))");
        double ms = ((Number) rendered).doubleValue();
        double loaded = ((Number) driver.executeScript(
            "return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")).doubleValue();
        renders.add(ms);
        StringBuilder line = new StringBuilder(String.format(
            "round %d: scripts loaded at %.0f ms, %d rows on screen at %.0f ms;", round + 1, loaded, rows, ms));
        calls.forEach(call -> line.append(String.format(" %s %.0f ms", call.get("name"),
            ((Number) call.get("ms")).doubleValue())));
        System.out.println(line);
      }
    } finally {
      driver.quit();
    }
    List<Double> sorted = renders.stream().sorted().toList();
    System.out.printf("render: median %.0f ms, max %.0f ms over %d rounds (the first includes a cold cache)%n",
        sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.size());
  }
}
