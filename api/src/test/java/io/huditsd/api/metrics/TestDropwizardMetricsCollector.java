package io.huditsd.api.metrics;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.huditsd.api.PrometheusText;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Dropwizard's metrics as the endpoint shows them: simpleclient_dropwizard 0.16's names and types, in snake_case. */
class TestDropwizardMetricsCollector {
  @Test
  void eachKindOfDropwizardMetricIsExposedAsBefore() {
    MetricRegistry dropwizard = new MetricRegistry();
    dropwizard.register("org.eclipse.jetty.util.thread.QueuedThreadPool.dw.size", (com.codahale.metrics.Gauge<Integer>)
        () -> 8);
    dropwizard.register("io.dropwizard.jersey.healthy", (com.codahale.metrics.Gauge<Boolean>) () -> true);
    dropwizard.register("io.dropwizard.jersey.name", (com.codahale.metrics.Gauge<String>) () -> "not a number");
    dropwizard.counter("io.dropwizard.jetty.MutableServletContextHandler.active-requests").inc(3);
    dropwizard.meter("ch.qos.logback.core.Appender.error").mark(2);
    Timer timer = dropwizard.timer("io.dropwizard.jetty.MutableServletContextHandler.requests");
    timer.update(250, TimeUnit.MILLISECONDS);
    timer.update(250, TimeUnit.MILLISECONDS);
    dropwizard.histogram("TimeBoundHealthCheck-pool.sizes").update(5);

    String text = Scrape.text(new DropwizardMetricsCollector(dropwizard));

    assertThat(PrometheusText.types(text)).containsExactlyInAnyOrderEntriesOf(Map.of(
        "org_eclipse_jetty_util_thread_queued_thread_pool_dw_size", "gauge",
        "io_dropwizard_jersey_healthy", "gauge",
        "io_dropwizard_jetty_mutable_servlet_context_handler_active_requests", "gauge",
        "ch_qos_logback_core_appender_error_total", "counter",
        "io_dropwizard_jetty_mutable_servlet_context_handler_requests", "summary",
        "time_bound_health_check_pool_sizes", "summary"));
    Map<String, Double> samples = PrometheusText.parse(text);
    assertThat(samples)
        .containsEntry("org_eclipse_jetty_util_thread_queued_thread_pool_dw_size", 8.0)
        .containsEntry("io_dropwizard_jersey_healthy", 1.0)
        .containsEntry("io_dropwizard_jetty_mutable_servlet_context_handler_active_requests", 3.0)
        .containsEntry("ch_qos_logback_core_appender_error_total", 2.0)
        .containsEntry("io_dropwizard_jetty_mutable_servlet_context_handler_requests_count", 2.0)
        .containsEntry("time_bound_health_check_pool_sizes{quantile=\"0.999\"}", 5.0)
        .containsEntry("time_bound_health_check_pool_sizes_count", 1.0)
        // Dropwizard keeps no sum; simpleclient exposed none either.
        .doesNotContainKey("io_dropwizard_jetty_mutable_servlet_context_handler_requests_sum");
    // Timers in seconds, at 0.16's quantiles.
    for (String quantile : new String[] {"0.5", "0.75", "0.95", "0.98", "0.99", "0.999"}) {
      assertThat(samples.get("io_dropwizard_jetty_mutable_servlet_context_handler_requests{quantile=\"" + quantile
          + "\"}")).isCloseTo(0.25, within(1e-9));
    }
  }

  @Test
  void classNamesInDropwizardMetricNamesBecomeSnakeCase() {
    assertThat(DropwizardMetricsCollector.prometheusName("io.dropwizard.jetty.MutableServletContextHandler.requests"))
        .isEqualTo("io_dropwizard_jetty_mutable_servlet_context_handler_requests");
    assertThat(DropwizardMetricsCollector.prometheusName("TimeBoundHealthCheck-pool.created"))
        .isEqualTo("time_bound_health_check_pool_created");
    assertThat(DropwizardMetricsCollector.prometheusName("org.eclipse.jetty.server.HttpConnectionFactory.0.connections"))
        .isEqualTo("org_eclipse_jetty_server_http_connection_factory_0_connections");
    assertThat(DropwizardMetricsCollector.prometheusName("io.dropwizard.jersey.errors.EofExceptionWriterInterceptor"
        + ".eof-exceptions")).isEqualTo("io_dropwizard_jersey_errors_eof_exception_writer_interceptor_eof_exceptions");
    assertThat(DropwizardMetricsCollector.prometheusName("2xx-responses")).isEqualTo("_2xx_responses");
  }

  @Test
  void twoDropwizardNamesForOnePrometheusNameDoNotFailTheScrape() {
    MetricRegistry dropwizard = new MetricRegistry();
    dropwizard.counter("jobs.Queued").inc();
    dropwizard.counter("jobs_queued").inc(2);

    assertThat(PrometheusText.parse(Scrape.text(new DropwizardMetricsCollector(dropwizard))))
        .containsOnlyKeys("jobs_queued");
  }
}
