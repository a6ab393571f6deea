package io.huditsd.config;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Parses YAML text the way Dropwizard parses the daemon's file: its default factory (which turns unknown keys into
 * errors), object mapper and validator. The daemon's own cross-section checks ({@link ConfigurationChecks}) are not
 * part of it.
 */
final class ConfigurationFiles {
  static final String PATH = "tsd.yml";

  private ConfigurationFiles() {
  }

  static TsdConfiguration parse(String yaml) throws IOException, ConfigurationException {
    ConfigurationFactory<TsdConfiguration> factory = new DefaultConfigurationFactoryFactory<TsdConfiguration>()
        .create(TsdConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
    return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), PATH);
  }
}
