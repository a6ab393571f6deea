package io.huditsd.api;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.huditsd.config.TsdConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The tsd.yml of {@code once --config}, read as {@code server} reads it: the application's configuration factory
 * (unknown keys, Hudi keys and values, locks, the spark section), its environment and its source provider.
 */
final class OnceConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(OnceConfiguration.class);

  private OnceConfiguration() {
  }

  /** The configuration in {@code file}; a problem with it is bad input, its message naming the file and the key. */
  @SuppressWarnings("unchecked")
  static TsdConfiguration read(Bootstrap<?> bootstrap, String file) {
    // once is registered on the application's bootstrap, whose configuration is a TsdConfiguration.
    Bootstrap<TsdConfiguration> tsd = (Bootstrap<TsdConfiguration>) bootstrap;
    ConfigurationFactory<TsdConfiguration> factory = tsd.getConfigurationFactoryFactory().create(
        TsdConfiguration.class, tsd.getValidatorFactory().getValidator(), tsd.getObjectMapper(), "dw");
    try {
      return factory.build(tsd.getConfigurationSourceProvider(), file);
    } catch (ConfigurationException e) {
      LOG.debug("Configuration error", e);
      throw new OnceCommand.CommandFailedException(e.getMessage().strip());
    } catch (IOException e) {
      throw new OnceCommand.CommandFailedException("--config " + file + ": cannot be read: " + e.getMessage());
    }
  }
}
