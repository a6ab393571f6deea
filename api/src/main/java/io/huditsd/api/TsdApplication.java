package io.huditsd.api;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.huditsd.api.rest.RunsResource;
import io.huditsd.api.rest.TablesResource;
import io.huditsd.config.TsdConfiguration;

/** The daemon's entry point: {@code server CONFIG.yml}, {@code once ...} and {@code demo [DIR]}. */
public class TsdApplication extends Application<TsdConfiguration> {
  public static void main(String[] args) throws Exception {
    new TsdApplication().run(args);
  }

  @Override
  public String getName() {
    return "hudi-tsd";
  }

  @Override
  public void initialize(Bootstrap<TsdConfiguration> bootstrap) {
    bootstrap.setConfigurationFactoryFactory(new CheckedConfigurationFactoryFactory());
    bootstrap.addCommand(new OnceCommand());
    bootstrap.addCommand(new DemoCommand());
  }

  @Override
  public void run(TsdConfiguration configuration, Environment environment) {
    Daemon daemon = new Daemon(configuration);
    environment.lifecycle().manage(daemon);
    environment.jersey().register(new TablesResource(daemon.registry()));
    environment.jersey().register(new RunsResource(daemon.pool(), daemon.history()));
    environment.healthChecks().register("worker-pool", new WorkerPoolHealthCheck(daemon.pool()));
  }
}
