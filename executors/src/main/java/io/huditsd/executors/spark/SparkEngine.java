package io.huditsd.executors.spark;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.ExecutionPlacement;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.PlanEngine;
import io.huditsd.executors.PlanLiveness;
import io.huditsd.executors.PlanSizes;
import io.huditsd.executors.PlanSkippedException;
import io.huditsd.executors.RunCancelledException;
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.spark.SparkApplications.KillReason;
import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.TimelineUtils;
import org.apache.spark.launcher.SparkAppHandle;
import org.apache.spark.launcher.SparkLauncher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Executes compaction and clustering plans as Spark applications (issue 14): the runner of module spark-runner,
 * submitted with Spark's own launcher library ({@link SparkLauncher#startApplication}), executes exactly the pending
 * instant with the write-config keys the daemon would use for the table. The worker thread that called
 * {@link #execute} waits for the application's final state, up to {@code spark.timeout} (then the application is
 * killed and the attempt fails).
 *
 * <p>What counts is the timeline, not the application's state: the run succeeded when the instant completed, and its
 * {@link ActionResult} comes from the completed instant's commit metadata. An application that finished with the
 * plan still pending failed. After a failure the attempt ends only once the plan's heartbeat (kept by the runner)
 * has expired or was removed, so that its retry neither finds the plan "held by a live process" nor races a driver
 * that has not died yet.
 *
 * <p>Stopping the daemon ({@link #close()}) does not kill running applications: they keep the plan's heartbeat, so
 * a restarted daemon leaves the plan alone until it completes (or its heartbeat expires). Their runs end
 * {@code skipped}.
 */
public final class SparkEngine implements PlanEngine, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SparkEngine.class);
  private static final Duration KILL_WAIT = Duration.ofSeconds(30);
  private static final long HEARTBEAT_CHECK_MILLIS = 500;
  /**
   * How the runner ({@code PlanRunnerApp}, exit code 3) says that it left the plan alone: not pending any more, or
   * executed by another live process. Spark's launcher reports only FAILED; the line in the driver's log tells why.
   */
  static final String RUNNER_NOT_EXECUTING = "Not executing ";

  private final HudiTables tables;
  private final Map<ServiceType, ServiceAction> actions;
  private final SparkSettings settings;
  private final SparkApplications applications;
  private final PlanLiveness liveness;
  private final CompletableFuture<Void> closing = new CompletableFuture<>();

  public SparkEngine(HudiTables tables, List<ServiceAction> actions, SparkSettings settings,
                     SparkApplications applications) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.applications = Objects.requireNonNull(applications, "applications is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    Map<ServiceType, ServiceAction> byService = new EnumMap<>(ServiceType.class);
    for (ServiceAction action : actions) {
      byService.put(action.service(), action);
    }
    this.actions = byService;
  }

  public SparkApplications applications() {
    return applications;
  }

  public SparkSettings settings() {
    return settings;
  }

  @Override
  public ActionResult execute(WorkItem item) {
    if (!ExecutionPlacement.runsAnywhere(item.service()) || item.instant().isEmpty()) {
      throw new IllegalStateException("table " + item.table().id() + ": " + item.service().configName()
          + " always runs in the daemon, not on Spark");
    }
    ServiceAction action = actions.get(item.service());
    if (action == null) {
      throw new IllegalStateException("No action for service " + item.service());
    }
    String instant = item.instant().get();
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    PendingPlan plan = PendingPlans.find(metaClient, instant)
        .orElseThrow(() -> new PlanSkippedException("plan " + instant + " is no longer pending"));
    long bytesIn = PlanSizes.of(metaClient, plan).bytesIn();
    Map<String, String> keys = new HashMap<>(tables.effectiveKeys(item.table(), metaClient));
    keys.putAll(action.clientOverrides(item, metaClient));

    Instant submittedAt = Instant.now();
    Submission submission = Submission.create(settings.logDir(), item, submittedAt);
    submission.writeProperties(keys, "hudi-tsd: " + item.describe());
    CompletableFuture<SparkAppHandle.State> finalState = new CompletableFuture<>();
    SparkAppHandle handle = submit(item, submission, submittedAt, finalState);
    try {
      SparkAppHandle.State state = awaitFinalState(item, handle, finalState, submittedAt);
      return outcome(item, plan, state, submission, submittedAt, bytesIn);
    } finally {
      applications.ended(item.key());
    }
  }

  private SparkAppHandle submit(WorkItem item, Submission submission, Instant submittedAt,
                                CompletableFuture<SparkAppHandle.State> finalState) {
    String instant = item.instant().orElseThrow();
    SparkLauncher launcher = new SparkLauncher(Map.of("SPARK_SCALA_VERSION", "2.12"))
        .setSparkHome(settings.sparkHome().toString())
        .setMaster(settings.master())
        .setDeployMode(settings.deployMode())
        .setAppResource(settings.applicationJar().toString())
        .setMainClass(SparkSettings.MAIN_CLASS)
        .setAppName("hudi-tsd " + item.service().configName() + " " + item.table().id() + " " + instant)
        .addAppArgs("--base-path", item.table().basePath(), "--service", item.service().configName(),
            "--instant", instant, "--props", submission.properties().toString())
        // In cluster mode the path above is not on the driver's machine; the runner then opens its shipped copy.
        .addFile(submission.properties().toString())
        .directory(submission.directory().toFile())
        .redirectError()
        .redirectOutput(submission.driverLog().toFile());
    settings.jars().forEach(jar -> launcher.addJar(jar.toString()));
    settings.conf().forEach(launcher::setConf);
    // Hudi loads the lock provider (and the conflict resolution strategy) by name from its own class loader, which
    // does not see --jars: the jars go on the driver's class path too, after whatever the conf puts there.
    String driverClassPath = settings.jars().stream().map(Path::toString).collect(Collectors.joining(":"));
    if (!driverClassPath.isEmpty()) {
      String configured = settings.conf().get(SparkLauncher.DRIVER_EXTRA_CLASSPATH);
      launcher.setConf(SparkLauncher.DRIVER_EXTRA_CLASSPATH,
          configured == null || configured.isBlank() ? driverClassPath : configured + ":" + driverClassPath);
    }
    SparkApplication initial = new SparkApplication(item.key(), Optional.empty(),
        SparkAppHandle.State.UNKNOWN.name(), Optional.empty(), submittedAt, submission.driverLog());
    Listener listener = new Listener(item, initial, finalState);
    SparkAppHandle handle;
    try {
      handle = launcher.startApplication(listener);
    } catch (IOException e) {
      throw new UncheckedIOException("table " + item.table().id() + ": cannot submit plan " + instant + " with "
          + settings.sparkHome().resolve("bin/spark-submit") + "; driver log " + submission.driverLog(), e);
    }
    applications.submitted(listener.current(handle), handle);
    LOG.info("Submitted {} master={} deployMode={} driverLog={}", item.describe(), settings.master(),
        settings.deployMode(), submission.driverLog());
    return handle;
  }

  /** Reports the launcher's changes to the registry and the log; completes {@code finalState}. Never blocks. */
  private final class Listener implements SparkAppHandle.Listener {
    private final WorkItem item;
    private final SparkApplication initial;
    private final CompletableFuture<SparkAppHandle.State> finalState;
    private volatile SparkAppHandle.State lastState = SparkAppHandle.State.UNKNOWN;
    private volatile String lastAppId;

    private Listener(WorkItem item, SparkApplication initial, CompletableFuture<SparkAppHandle.State> finalState) {
      this.item = item;
      this.initial = initial;
      this.finalState = finalState;
    }

    SparkApplication current(SparkAppHandle handle) {
      Optional<String> appId = Optional.ofNullable(handle.getAppId());
      return initial.withState(handle.getState().name(), appId, appId.flatMap(settings::uiUrlOf));
    }

    @Override
    public void stateChanged(SparkAppHandle handle) {
      SparkAppHandle.State state = handle.getState();
      applications.changed(current(handle));
      if (state != lastState) {
        lastState = state;
        LOG.info("Spark application {} state={} appId={}", item.describe(), state.name().toLowerCase(Locale.ROOT),
            Optional.ofNullable(handle.getAppId()).orElse("-"));
      }
      if (state.isFinal()) {
        finalState.complete(state);
      }
    }

    @Override
    public void infoChanged(SparkAppHandle handle) {
      applications.changed(current(handle));
      String appId = handle.getAppId();
      if (appId != null && !appId.equals(lastAppId)) {
        lastAppId = appId;
        LOG.info("Submitted {} appId={}{}", item.describe(), appId,
            settings.uiUrlOf(appId).map(url -> " ui=" + url).orElse(""));
      }
    }
  }

  private SparkAppHandle.State awaitFinalState(WorkItem item, SparkAppHandle handle,
                                               CompletableFuture<SparkAppHandle.State> finalState,
                                               Instant submittedAt) {
    Instant deadline = submittedAt.plus(settings.timeout());
    try {
      CompletableFuture.anyOf(finalState, closing)
          .get(Math.max(1, Duration.between(Instant.now(), deadline).toMillis()), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn("Killing the Spark application of {} appId={}: still {} after spark.timeout {}", item.describe(),
          Optional.ofNullable(handle.getAppId()).orElse("-"), handle.getState().name().toLowerCase(Locale.ROOT),
          settings.config().timeout());
      applications.kill(item.key(), KillReason.TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Spark application of " + item.describe(),
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    if (!finalState.isDone() && closing.isDone()) {
      // Not killed: the application keeps the plan's heartbeat and completes on its own; a restarted daemon sees
      // the plan held by a live process and leaves it alone.
      throw new PlanSkippedException("the daemon stopped while Spark application "
          + Optional.ofNullable(handle.getAppId()).orElse(SparkApplication.NO_ID) + " executed plan "
          + item.instant().orElseThrow() + "; it was left running and keeps the plan's heartbeat");
    }
    try {
      return finalState.get(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the Spark application of " + item.describe() + " did not reach a final "
          + "state within " + KILL_WAIT.toSeconds() + "s of being killed (state " + handle.getState() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Spark application of " + item.describe(),
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private ActionResult outcome(WorkItem item, PendingPlan plan, SparkAppHandle.State state, Submission submission,
                               Instant submittedAt, long bytesIn) {
    String instant = plan.instant();
    SparkApplication application = applications.find(item.key()).orElseThrow();
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    Optional<HoodieInstant> completed = completedInstant(metaClient, instant);
    if (completed.isPresent()) {
      // The timeline decides: an application killed or failed after its commit still executed the plan.
      return result(item, metaClient, completed.get(), bytesIn, Duration.between(submittedAt, Instant.now()));
    }
    Optional<KillReason> killed = applications.killReason(item.key());
    if (killed.isPresent() && killed.get() == KillReason.CANCELLED) {
      throw new RunCancelledException("cancelled: Spark application " + application.describeId() + " was killed; "
          + "plan " + instant + " stays pending and is rolled back and executed at its next attempt");
    }
    boolean stillPending = PendingPlans.find(metaClient, instant).isPresent();
    if (!stillPending) {
      throw new PlanSkippedException("plan " + instant + " is no longer pending (rolled back elsewhere while "
          + "Spark application " + application.describeId() + " ran)");
    }
    List<String> tail = submission.driverLogTail();
    Optional<String> notExecuted = tail.stream().filter(line -> line.contains(RUNNER_NOT_EXECUTING)).findFirst();
    if (notExecuted.isPresent()) {
      // The runner found the plan held by another live process (its heartbeat) and wrote nothing.
      throw new PlanSkippedException("plan " + instant + " was not executed by Spark application "
          + application.describeId() + ": " + notExecuted.get().substring(notExecuted.get()
          .indexOf(RUNNER_NOT_EXECUTING)));
    }
    awaitHeartbeatExpiry(item, metaClient, instant);
    String what = state == SparkAppHandle.State.FINISHED
        ? "finished but plan " + instant + " is still pending"
        : "ended " + state.name().toLowerCase(Locale.ROOT) + (killed.isPresent() ? " (killed after spark.timeout "
            + settings.config().timeout() + ")" : "") + " with plan " + instant + " still pending";
    throw new IllegalStateException("table " + item.table().id() + ": Spark application "
        + application.describeId() + " " + what + "; driver log " + submission.driverLog() + tail(tail));
  }

  private static String tail(List<String> lines) {
    return lines.isEmpty() ? " (empty)" : ", last lines:\n" + String.join("\n", lines);
  }

  /**
   * Waits until nothing keeps the plan's heartbeat: the runner's driver may outlive the state the launcher reported
   * (cluster mode, a kill still in progress), and a retry started before would be skipped as "held by a live
   * process". Bounded by the heartbeat's expiry window.
   */
  private void awaitHeartbeatExpiry(WorkItem item, HoodieTableMetaClient metaClient, String instant) {
    long deadline = System.currentTimeMillis() + tables.heartbeat().expiryMillis()
        + tables.heartbeat().intervalMillis();
    while (liveness.isAlive(metaClient, instant) && System.currentTimeMillis() < deadline && !closing.isDone()) {
      try {
        closing.get(HEARTBEAT_CHECK_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // checked again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        return;
      }
    }
    LOG.debug("Heartbeat of plan {} of {} no longer alive (or waited out)", instant, item.table().id());
  }

  static Optional<HoodieInstant> completedInstant(HoodieTableMetaClient metaClient, String instant) {
    return metaClient.getActiveTimeline().filterCompletedInstants().getInstantsAsStream()
        .filter(candidate -> candidate.requestedTime().equals(instant))
        .filter(candidate -> candidate.getAction().equals(HoodieTimeline.COMMIT_ACTION)
            || candidate.getAction().equals(HoodieTimeline.REPLACE_COMMIT_ACTION))
        .findFirst();
  }

  /** What the run did, from the completed instant's commit metadata (the runner reports nothing else). */
  private static ActionResult result(WorkItem item, HoodieTableMetaClient metaClient, HoodieInstant completed,
                                     long bytesIn, Duration duration) {
    HoodieCommitMetadata metadata;
    try {
      metadata = TimelineUtils.getCommitMetadata(completed, metaClient.getActiveTimeline());
    } catch (IOException e) {
      throw new UncheckedIOException("table " + item.table().id() + ": cannot read the commit metadata of "
          + completed, e);
    }
    return new ActionResult(item.service(), item.instant(), metadata.getWriteStats().size(), bytesIn,
        metadata.fetchTotalBytesWritten(), duration);
  }

  /** Kills the running application of {@code runKey} on request: its run ends cancelled. */
  public boolean cancel(String runKey) {
    boolean killed = applications.kill(runKey, KillReason.CANCELLED);
    if (killed) {
      LOG.info("Killing the Spark application of run {} on request", runKey);
    }
    return killed;
  }

  /** Stops waiting for running applications without killing them (see the class comment). */
  @Override
  public void close() {
    closing.complete(null);
  }
}
