package io.huditsd.api;

import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.huditsd.config.TsdConfiguration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The application's configuration factory: Dropwizard's parsing, then the daemon's own checks. */
class TestCheckedConfigurationFactoryFactory {
  private final ConfigurationFactory<TsdConfiguration> factory = new CheckedConfigurationFactoryFactory()
      .create(TsdConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

  private TsdConfiguration build(String yaml) throws Exception {
    return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "tsd.yml");
  }

  @Test
  void aValidFileIsReturned() throws Exception {
    TsdConfiguration configuration = build("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.compact.inline.max.delta.commits: "3"
        """);

    assertThat(configuration.getTables()).hasSize(1);
    assertThat(configuration.getTables().get(0).hoodie())
        .containsEntry("hoodie.compact.inline.max.delta.commits", "3");
  }

  @Test
  void unknownDaemonKeysAreStillRejectedByDropwizard() {
    assertThatThrownBy(() -> build("""
        tables:
          - path: /data/orders
        workerz:
          count: 2
        """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageStartingWith("tsd.yml has an error:\n  * Unrecognized field at: workerz\n");
  }

  @Test
  void theDaemonsChecksFailTheFileWithEveryErrorListed() {
    assertThatThrownBy(() -> build("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.write.table.version: "9"
          - path: /data/orders/
        hoodie:
          hoodie.compact.inline.max.delta.commit: "3"
        """))
        .isInstanceOf(CheckedConfigurationFactoryFactory.InvalidConfigurationException.class)
        .hasMessage("""
            tsd.yml has the following errors:
              * hoodie: key 'hoodie.compact.inline.max.delta.commit' is not a Hudi configuration key (did you mean \
            hoodie.compact.inline.max.delta.commits?)
              * tables[0].hoodie: key 'hoodie.write.table.version' may not be set: the daemon pins it to the table's \
            own hoodie.table.version
              * tables[1].path: /data/orders/ is already listed as tables[0]
            """);
  }

  @Test
  void aSingleErrorIsReportedAsSuch() {
    assertThatThrownBy(() -> build("polling:\n  interval: 10s\n"))
        .isInstanceOf(CheckedConfigurationFactoryFactory.InvalidConfigurationException.class)
        .hasMessage("tsd.yml has an error:\n"
            + "  * tables: no tables listed, no discovery.roots given and tableServiceManager.registerUnknownTables "
            + "is off, so there is nothing to service\n");
  }

  @Test
  void theDefaultConfigurationHasNothingToService() {
    assertThatThrownBy(factory::build)
        .isInstanceOf(CheckedConfigurationFactoryFactory.InvalidConfigurationException.class)
        .hasMessage("default configuration has an error:\n"
            + "  * tables: no tables listed, no discovery.roots given and tableServiceManager.registerUnknownTables "
            + "is off, so there is nothing to service\n");
  }

  @Test
  void aTableOnAStoreWithoutADefaultLockMustNameOneAtStart() {
    String missing = " and the daemon has no cross-process lock of its own for this store (its storage locks support"
        + " file, hdfs, s3 and s3a tables): set hoodie.write.lock.provider to the lock your writers use, e.g."
        + " org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider with hoodie.write.lock.zookeeper.url"
        + " and hoodie.write.lock.zookeeper.base_path";
    assertThatThrownBy(() -> build("""
        tables:
          - path: wasbs://lake@account.blob.core.windows.net/orders
          - path: /data/orders
        discovery:
          roots: [gs://lake/warehouse]
        """))
        .isInstanceOf(CheckedConfigurationFactoryFactory.InvalidConfigurationException.class)
        .hasMessageContaining("* tables[0].hoodie: no table lock is configured for"
            + " wasbs://lake@account.blob.core.windows.net/orders," + missing)
        .hasMessageContaining("* discovery.hoodie: no table lock is configured for gs://lake/warehouse," + missing)
        .message().doesNotContain("tables[1]");
  }
}
