package io.huditsd.sparkrunner;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRunnerArgs {
  private static final List<String> VALID = List.of("--base-path", "file:///t/a", "--service", "clustering",
      "--instant", "20261201153447583", "--props", "/tmp/a.properties");

  @Test
  void parsesEveryOptionInAnyOrder() {
    RunnerArgs args = RunnerArgs.parse(List.of("--props", "p.properties", "--instant", "20261201153447583",
        "--service", "COMPACTION", "--base-path", "/t/b"));

    assertThat(args).isEqualTo(new RunnerArgs("/t/b", Service.COMPACTION, "20261201153447583", "p.properties"));
    assertThat(RunnerArgs.parse(VALID).service()).isEqualTo(Service.CLUSTERING);
  }

  @Test
  void namesAMissingOption() {
    assertThatThrownBy(() -> RunnerArgs.parse(VALID.subList(0, 6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--props is missing")
        .hasMessageContaining(RunnerArgs.USAGE);
  }

  @Test
  void namesAnOptionWithoutValue() {
    assertThatThrownBy(() -> RunnerArgs.parse(List.of("--base-path", "--service", "compaction")))
        .hasMessageStartingWith("--base-path needs a value");
    assertThatThrownBy(() -> RunnerArgs.parse(List.of("--base-path", "/t", "--instant")))
        .hasMessageStartingWith("--instant needs a value");
  }

  @Test
  void refusesRepeatedAndUnknownArguments() {
    assertThatThrownBy(() -> RunnerArgs.parse(List.of("--instant", "1", "--instant", "2")))
        .hasMessageStartingWith("--instant is given twice");
    assertThatThrownBy(() -> RunnerArgs.parse(List.of("--base-path", "/t", "extra")))
        .hasMessageStartingWith("unknown argument 'extra'");
  }

  @Test
  void refusesServicesThatRunInTheDaemonAndMalformedInstants() {
    List<String> clean = List.of("--base-path", "/t", "--service", "clean", "--instant", "1", "--props", "p");
    assertThatThrownBy(() -> RunnerArgs.parse(clean))
        .hasMessageContaining("--service clean is not one the runner executes (accepted: compaction, clustering;"
            + " clean, archive and index run in the daemon)");
    List<String> badInstant = List.of("--base-path", "/t", "--service", "compaction", "--instant", "latest",
        "--props", "p");
    assertThatThrownBy(() -> RunnerArgs.parse(badInstant))
        .hasMessageStartingWith("--instant latest is not an instant time");
  }
}
