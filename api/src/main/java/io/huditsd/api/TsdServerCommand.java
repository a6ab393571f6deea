package io.huditsd.api;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.TableProbe;
import net.sourceforge.argparse4j.inf.Namespace;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Dropwizard's {@code server CONFIG.yml}, which first refuses explicit tables it cannot service
 * ({@link ExplicitTableCheck}), and prints a configuration error as its message alone: the message names the file,
 * the entry and the key, and the stack trace after it only hid that (it is logged at debug).
 */
final class TsdServerCommand extends ServerCommand<TsdConfiguration> {
  private static final Logger LOG = LoggerFactory.getLogger(TsdServerCommand.class);

  TsdServerCommand(Application<TsdConfiguration> application) {
    super(application);
  }

  @Override
  protected void run(Bootstrap<TsdConfiguration> bootstrap, Namespace namespace, TsdConfiguration configuration)
      throws Exception {
    Configuration hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    List<String> errors = new ExplicitTableCheck(new TableProbe(hadoopConfiguration),
        new HudiTables(hadoopConfiguration, HeartbeatSettings.of(configuration.getWorkers()))).check(configuration);
    if (!errors.isEmpty()) {
      throw new CheckedConfigurationFactoryFactory.InvalidConfigurationException(namespace.getString("file"), errors);
    }
    super.run(bootstrap, namespace, configuration);
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable error) {
    if (error instanceof ConfigurationException) {
      LOG.debug("Configuration error", error);
      cli.getStdErr().println(error.getMessage());
    } else {
      super.onError(cli, namespace, error);
    }
  }
}
