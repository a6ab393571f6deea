package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.RunRecord;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What the operations of {@link TableOperations} answer: one sealed type per operation, whose records are every
 * case a caller (the REST resources, the table service manager endpoint, a command line) has to map to a status or
 * exit code. The refusals that several operations share are the same records, all of them {@link Refusal}s with the
 * same words wherever they are answered.
 */
public final class OperationOutcomes {
  private OperationOutcomes() {
  }

  /**
   * An operation that was not done, and why, in words that name the table, plan or service. The records say which
   * kind: the table or plan does not exist, the request cannot be done at all, or the table's state refuses it now.
   */
  public sealed interface Refusal {
    String message();
  }

  /** What {@link TableOperations#execute} did. */
  public sealed interface Execution {
  }

  /** What {@link TableOperations#schedule} did. */
  public sealed interface Scheduling {
  }

  /** What {@link TableOperations#dryRun} found. */
  public sealed interface DryRun {
  }

  /** What {@link TableOperations#pause} and {@link TableOperations#resume} did. */
  public sealed interface PauseChange {
  }

  /** What {@link TableOperations#handOver} did with the plans a writer handed over. */
  public sealed interface Handover {
  }

  /** What {@link TableOperations#cancel} did, decided under the pool's lock for the queued case. */
  public sealed interface Cancel {
  }

  /** The run was queued (or waiting to retry) and is removed; {@code run} is its final record. */
  public record Cancelled(RunRecord run) implements Cancel {
    public Cancelled {
      Objects.requireNonNull(run, "run is null");
    }
  }

  /** The run executes on Spark: its application is being killed, and the run ends cancelled. */
  public record Killing(RunRecord run) implements Cancel {
    public Killing {
      Objects.requireNonNull(run, "run is null");
    }
  }

  /** The run executes in the daemon and stays so: a running in-process plan is never interrupted. */
  public record StillRunning(RunRecord run) implements Refusal, Cancel {
    public StillRunning {
      Objects.requireNonNull(run, "run is null");
    }

    public String message() {
      return "Run " + run.runId() + " is running in the daemon and cannot be removed";
    }
  }

  /** No queued or running run has this id: never queued, or finished or cancelled already. */
  public record NoQueuedRun(long runId) implements Refusal, Cancel {
    public String message() {
      return "No queued run with id " + runId;
    }
  }

  /**
   * The engine asked for cannot run the plan: Spark for a service that always runs in the daemon, or Spark without a
   * {@code spark} section. The request can never be done as it is.
   */
  public record EngineRefused(String tableId, String instant, String reason) implements Refusal, Execution {
    public String message() {
      return reason;
    }
  }

  /** The plan was queued as run {@code run}. */
  public record Queued(RunRecord run) implements Execution {
    public Queued {
      Objects.requireNonNull(run, "run is null");
    }
  }

  /** The plan is queued or running already ({@code existing}; empty if that run ended meanwhile). */
  public record AlreadyQueued(String tableId, String instant, Optional<RunRecord> existing)
      implements Refusal, Execution {
    public AlreadyQueued {
      Objects.requireNonNull(tableId, "tableId is null");
      Objects.requireNonNull(instant, "instant is null");
      Objects.requireNonNull(existing, "existing is null");
    }

    public String message() {
      return "Plan " + instant + " of table '" + tableId + "' is already " + existing
          .map(run -> run.status().name().toLowerCase(Locale.ROOT) + " (run " + run.runId() + ")")
          .orElse("queued or running");
    }
  }

  /** The table's timeline has no pending plan at {@code instant}: never planned, completed or rolled back. */
  public record NoPendingPlan(String tableId, String instant) implements Refusal, Execution {
    public String message() {
      return "Table '" + tableId + "' has no pending plan at instant '" + instant + "'";
    }
  }

  /** No table with this id is serviced. */
  public record UnknownTable(String tableId) implements Refusal, Execution, Scheduling, DryRun, PauseChange, Handover {
    public String message() {
      return "No table with id '" + tableId + "'";
    }
  }

  /** Another replica (or none, during a hand-over) owns the table; only the owner schedules and executes. */
  public record NotOwned(String tableId, Optional<String> owner, String replicaId)
      implements Refusal, Execution, Scheduling, Handover {
    public NotOwned {
      Objects.requireNonNull(owner, "owner is null");
    }

    public String message() {
      return "Table '" + tableId + "' is owned by " + owner.map(name -> "replica '" + name + "'")
          .orElse("no replica right now") + ", not by replica '" + replicaId + "'; ask its owner";
    }
  }

  /** The table is paused: nothing is scheduled or executed on request until it is resumed. */
  public record TablePaused(String tableId) implements Refusal, Execution, Scheduling {
    public String message() {
      return "Table '" + tableId + "' is paused; resume it first";
    }
  }

  /**
   * The service is not among the table's services: the daemon never enqueues its plans (a writer that schedules
   * them executes them itself), so it does not write one either.
   */
  public record ServiceDisabled(String tableId, ServiceType service)
      implements Refusal, Execution, Scheduling, Handover {
    public String message() {
      return "Service " + service.configName() + " is not enabled on table '" + tableId + "'";
    }
  }

  /**
   * A file of the table that the operation needs cannot be read: {@code hoodie.properties}, or an instant file Hudi
   * would misread ({@link TableProbe#openReadable}). {@code reason} names the file and what is wrong with it; the
   * table's polls fail with the same words until the file is restored.
   */
  public record TableUnreadable(String tableId, String reason)
      implements Refusal, Execution, Scheduling, DryRun, Handover {
    public TableUnreadable {
      Objects.requireNonNull(tableId, "tableId is null");
      Objects.requireNonNull(reason, "reason is null");
    }

    public String message() {
      return "Table '" + tableId + "': " + reason;
    }
  }

  /** The service writes no plan (archive runs on its own once the timeline is long). */
  public record NoPlanForService(ServiceType service) implements Refusal, Scheduling, DryRun {
    public String message() {
      return service.configName() + " has no plan; it runs on its own once the timeline is long";
    }
  }

  /** A plan was written at {@code instant} and queued. */
  public record Scheduled(String tableId, ServiceType service, String instant) implements Scheduling {
  }

  /** Hudi found nothing to plan. */
  public record NothingToPlan(String tableId, ServiceType service) implements Scheduling, DryRun {
  }

  /**
   * Scheduling was refused by the table's state: a pending plan of the service (it is executed first), an instant
   * file Hudi cannot read, or a new plan that overlapped another and was withdrawn. {@code reason} says which.
   */
  public record SchedulingRefused(String tableId, ServiceType service, String reason)
      implements Refusal, Scheduling {
    public String message() {
      return reason;
    }
  }

  /** The compaction, clustering or clean plan Hudi would write now, not written. */
  public record Previewed(PlanPreview.Preview preview) implements DryRun {
    public Previewed {
      Objects.requireNonNull(preview, "preview is null");
    }
  }

  /** The metadata partitions an indexing plan written now would build, not written. */
  public record IndexPreviewed(List<String> partitions) implements DryRun {
    public IndexPreviewed {
      partitions = List.copyOf(partitions);
    }
  }

  /** The table's pause flag was set as asked; {@code state} is the table after the change. */
  public record Updated(TableState state) implements PauseChange {
    public Updated {
      Objects.requireNonNull(state, "state is null");
    }
  }

  /**
   * A writer's plans were taken over: {@code queued} are queued (they run once the table is resumed, if
   * {@code paused}); {@code ignored} are not pending plans of the service (already done, or unknown).
   */
  public record HandedOver(String tableId, List<String> queued, List<String> ignored, boolean paused)
      implements Handover {
    public HandedOver {
      queued = List.copyOf(queued);
      ignored = List.copyOf(ignored);
    }
  }
}
