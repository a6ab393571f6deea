package io.huditsd.executors.spark;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One Spark application the daemon submitted for a run, as the run's view shows it. Immutable: the registry replaces
 * it whole on each change ({@link SparkApplications}).
 *
 * @param runKey the work item's key ({@code table/service/instant})
 * @param appId the application id once Spark reported it
 * @param state Spark's state of it ({@code SparkAppHandle.State}, lower case: unknown, connected, submitted,
 *     running, finished, failed, killed, lost)
 * @param uiUrl the Spark UI address, when {@code spark.uiUrl} is set and the id is known
 * @param submittedAt when it was submitted
 * @param driverLog the file spark-submit's output goes to
 */
public record SparkApplication(String runKey, Optional<String> appId, String state, Optional<String> uiUrl,
                               Instant submittedAt, Path driverLog) {
  /** How a message names an application whose id Spark has not reported. */
  public static final String NO_ID = "(no application id yet)";

  public SparkApplication {
    Objects.requireNonNull(runKey, "runKey is null");
    Objects.requireNonNull(appId, "appId is null");
    Objects.requireNonNull(state, "state is null");
    state = state.toLowerCase(Locale.ROOT);
    Objects.requireNonNull(uiUrl, "uiUrl is null");
    Objects.requireNonNull(submittedAt, "submittedAt is null");
    Objects.requireNonNull(driverLog, "driverLog is null");
  }

  SparkApplication withState(String newState, Optional<String> newAppId, Optional<String> newUiUrl) {
    return new SparkApplication(runKey, newAppId, newState, newUiUrl, submittedAt, driverLog);
  }

  /** The id for messages: Spark's, or "(no id yet)" before Spark reported one. */
  public String describeId() {
    return appId.orElse(NO_ID);
  }
}
