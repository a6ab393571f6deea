package io.huditsd.api.metrics;

import io.prometheus.client.Collector;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestSnakeCaseSampleBuilder {
  @Test
  void classNamesInDropwizardMetricNamesBecomeSnakeCase() {
    Collector.MetricFamilySamples.Sample sample = new SnakeCaseSampleBuilder().createSample(
        "io.dropwizard.jetty.MutableServletContextHandler.requests", "_count", List.of("quantile"), List.of("0.5"), 3);
    assertThat(sample.name).isEqualTo("io_dropwizard_jetty_mutable_servlet_context_handler_requests_count");
    assertThat(sample.labelNames).containsExactly("quantile");
    assertThat(sample.labelValues).containsExactly("0.5");
    assertThat(sample.value).isEqualTo(3);
    assertThat(SnakeCaseSampleBuilder.snakeCase("TimeBoundHealthCheck_pool_created_total"))
        .isEqualTo("time_bound_health_check_pool_created_total");
    assertThat(SnakeCaseSampleBuilder.snakeCase("org_eclipse_jetty_server_HttpConnectionFactory_0_connections"))
        .isEqualTo("org_eclipse_jetty_server_http_connection_factory_0_connections");
    assertThat(SnakeCaseSampleBuilder.snakeCase("EofExceptionWriterInterceptor_eof_exceptions"))
        .isEqualTo("eof_exception_writer_interceptor_eof_exceptions");
    assertThat(SnakeCaseSampleBuilder.snakeCase("jvm_memory_bytes_used")).isEqualTo("jvm_memory_bytes_used");
  }
}
