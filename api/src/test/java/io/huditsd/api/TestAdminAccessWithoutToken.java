package io.huditsd.api;

import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.config.TsdConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin port of a real daemon without a token: there is no credential to check, so its tasks and dumps are
 * closed unless {@code auth.openAdmin} opens them; its probes answer either way.
 */
class TestAdminAccessWithoutToken {
  @TempDir
  Path dir;

  private DropwizardTestSupport<TsdConfiguration> daemon;

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  void tasksAndDumpsAreClosedByDefault() throws Exception {
    RestClient admin = start("");
    assertProbesAnswer(admin);
    Reply refused = admin.post("/tasks/log-level?logger=org.eclipse.jetty&level=DEBUG", null);
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.json().path("message").asText()).isEqualTo("The admin port serves only /live, /ready, "
        + "/healthcheck and /prometheus: set auth.tokenFile or auth.tokenEnv to reach the rest with Authorization: "
        + "Bearer <token>, or auth.openAdmin: true to open it to anyone");
    assertThat(admin.post("/tasks/gc", null).status()).isEqualTo(403);
    assertThat(admin.get("/threads").status()).isEqualTo(403);
    assertThat(admin.get("/metrics").status()).isEqualTo(403);
  }

  @Test
  void openAdminOpensThemToAnyone() throws Exception {
    RestClient admin = start("auth: {openAdmin: true}\n");
    assertProbesAnswer(admin);
    assertThat(admin.post("/tasks/gc", null).status()).isEqualTo(200);
    assertThat(admin.get("/threads").status()).isEqualTo(200);
  }

  private static void assertProbesAnswer(RestClient admin) {
    for (String probe : AdminAccessFilter.PROBE_PATHS) {
      assertThat(admin.get(probe).status()).as(probe).isEqualTo(200);
    }
  }

  private RestClient start(String auth) throws Exception {
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
        logging:
          level: WARN
        history:
          file: %s
        tableServiceManager:
          registerUnknownTables: true
        """.formatted(dir.resolve("history.jsonl")) + auth);
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    return new RestClient("http://localhost:" + daemon.getAdminPort(), null);
  }
}
