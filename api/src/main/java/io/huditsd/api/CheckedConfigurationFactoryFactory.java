package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationFactoryFactory;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.huditsd.config.ConfigurationChecks;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.lock.LockProviderCheck;
import jakarta.validation.Validator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Dropwizard's YAML factory (unknown keys are errors, messages name the file and the key) followed by the daemon's
 * own cross-field checks, reported the same way.
 */
final class CheckedConfigurationFactoryFactory implements ConfigurationFactoryFactory<TsdConfiguration> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckedConfigurationFactoryFactory.class);

  private final DefaultConfigurationFactoryFactory<TsdConfiguration> delegate =
      new DefaultConfigurationFactoryFactory<>();

  @Override
  public ConfigurationFactory<TsdConfiguration> create(Class<TsdConfiguration> type, Validator validator,
                                                       ObjectMapper objectMapper, String propertyPrefix) {
    ConfigurationFactory<TsdConfiguration> factory = delegate.create(type, validator, objectMapper, propertyPrefix);
    return new ConfigurationFactory<>() {
      @Override
      public TsdConfiguration build(ConfigurationSourceProvider provider, String path)
          throws IOException, ConfigurationException {
        return check(path, factory.build(provider, path));
      }

      @Override
      public TsdConfiguration build() throws IOException, ConfigurationException {
        return check("default configuration", factory.build());
      }
    };
  }

  private static TsdConfiguration check(String path, TsdConfiguration configuration) throws ConfigurationException {
    List<String> errors = new ArrayList<>(ConfigurationChecks.check(configuration));
    errors.addAll(SparkSetup.check(configuration.getSpark()));
    List<String> warnings = new ArrayList<>();
    if (errors.isEmpty()) {
      // Lock settings are only meaningful once the keys themselves are valid.
      ServicedTables tables = new ServicedTables(configuration);
      List<TableSpec> specs = configuration.getTables();
      for (int i = 0; i < specs.size(); i++) {
        ServicedTable table = tables.explicit(specs.get(i));
        errors.addAll(LockProviderCheck.check("tables[" + i + "].hoodie", table.hoodieKeys(), table.basePath()));
        warnings.addAll(LockProviderCheck.warnings("tables[" + i + "].hoodie", table.hoodieKeys()));
      }
      if (!configuration.getDiscovery().roots().isEmpty()) {
        // The keys every discovered table gets (the writers' hudi-defaults.conf lock included). A root's store is
        // every discovered table's store: a root without a usable lock is refused at start, not table by table.
        Map<String, String> discovered = tables.discovered(configuration.getDiscovery().roots().get(0)).hoodieKeys();
        errors.addAll(LockProviderCheck.check("discovery.hoodie", discovered));
        warnings.addAll(LockProviderCheck.warnings("discovery.hoodie", discovered));
        for (String root : configuration.getDiscovery().roots()) {
          errors.addAll(LockProviderCheck.check("discovery.hoodie", discovered, TablePaths.normalize(root)).stream()
              .filter(error -> !errors.contains(error)).toList());
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidConfigurationException(path, errors);
    }
    warnings.forEach(LOG::warn);
    return configuration;
  }

  /** The daemon's checks failed; the message lists every error under the file's path. */
  static final class InvalidConfigurationException extends ConfigurationException {
    InvalidConfigurationException(String path, Collection<String> errors) {
      super(path, errors);
    }
  }
}
