package io.huditsd.charts;

import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.core.setup.Bootstrap;
import io.huditsd.api.TsdApplication;
import io.huditsd.config.TsdConfiguration;

import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a tsd.yml with the configuration factory the daemon itself uses at start (with its own checks). */
final class DaemonConfigurations {
  private DaemonConfigurations() {
  }

  static TsdConfiguration parse(String yaml, Path directory) throws Exception {
    TsdApplication application = new TsdApplication();
    Bootstrap<TsdConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    ConfigurationFactory<TsdConfiguration> factory = bootstrap.getConfigurationFactoryFactory().create(
        TsdConfiguration.class, bootstrap.getValidatorFactory().getValidator(), bootstrap.getObjectMapper(), "dw");
    Path file = Files.createTempFile(directory, "tsd", ".yml");
    Files.writeString(file, yaml);
    return factory.build(new FileConfigurationSourceProvider(), file.toString());
  }
}
