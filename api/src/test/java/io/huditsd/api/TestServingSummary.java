package io.huditsd.api;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.huditsd.config.TsdConfiguration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The one line the daemon logs when it listens says what it serves, how it shares it and where it answers. */
class TestServingSummary {
  @Test
  void namesTablesRootsServicesSharingAndPorts() throws Exception {
    String yaml = """
        services: [compaction, clean]
        tables:
          - path: /lake/orders
        discovery:
          roots: [s3a://lake/warehouse]
        ha:
          zookeeper: zk:2181
          replicaId: tsd-0
        """;
    TsdConfiguration configuration = new DefaultConfigurationFactoryFactory<TsdConfiguration>()
        .create(TsdConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
        .build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "tsd.yml");
    assertThat(ServingSummary.line(configuration, 8080, 8081, true)).isEqualTo("hudi-tsd serving 1 named table(s) "
        + "and the tables under s3a://lake/warehouse (services compaction,clean) as replica tsd-0 of those sharing "
        + "zk:2181/hudi-tsd; API on port 8080 (bearer token required), admin on port 8081");
  }
}
