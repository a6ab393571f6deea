package io.huditsd.it.support;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;

/**
 * Debian's {@code chromium} driven through its {@code chromedriver}, headless, with the flags this machine needs
 * (its network is closed: without them Chromium keeps retrying connections) and a fresh profile. Selenium Manager is
 * never asked for a browser: both executables are named.
 */
public final class HeadlessChromium implements AutoCloseable {
  public static final String CHROMIUM = "/usr/bin/chromium";
  public static final String CHROMEDRIVER = "/usr/bin/chromedriver";

  private final ChromeDriver driver;

  private HeadlessChromium(ChromeDriver driver) {
    this.driver = driver;
  }

  /** A browser with its profile under {@code profile} and a window of {@code width} x {@code height}. */
  public static HeadlessChromium start(Path profile, int width, int height) {
    try {
      Files.createDirectories(profile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile.toAbsolutePath(),
        "--window-size=" + width + "," + height);
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
    return new HeadlessChromium(new ChromeDriver(service, options));
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** The browser console's messages since the last call (CSP violations and script errors show here). */
  public List<String> consoleMessages() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage).toList();
  }

  /** Writes a PNG of the window to {@code file}. */
  public void screenshot(Path file) {
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
