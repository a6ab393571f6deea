package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.exception.HoodieLockException;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Executes plans with Hudi's Java engine in this JVM: a fresh write client per run, with the keys the service's
 * action asks for, closed when the run ends; each run on threads of its own ({@link PlanThreads}).
 */
public final class JavaEngine implements PlanEngine {
  /** The message of Hudi 1.2.0's HoodieLockException when another process's heartbeat holds the instant. */
  static final String CONCURRENT_HEARTBEAT = "due to heartbeat by concurrent writer/job";

  private final HudiTables tables;
  private final Map<ServiceType, ServiceAction> actions;
  private final PlanThreads threads;

  /** Each plan on one thread per core. */
  public JavaEngine(HudiTables tables, List<ServiceAction> actions) {
    this(tables, actions, PlanThreads.perCore());
  }

  public JavaEngine(HudiTables tables, List<ServiceAction> actions, PlanThreads threads) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.actions = byService(actions);
    this.threads = Objects.requireNonNull(threads, "threads is null");
  }

  /** The actions by service; a service listed twice is a wiring mistake. */
  static Map<ServiceType, ServiceAction> byService(List<ServiceAction> actions) {
    Map<ServiceType, ServiceAction> byService = new EnumMap<>(ServiceType.class);
    for (ServiceAction action : actions) {
      if (byService.put(action.service(), action) != null) {
        throw new IllegalArgumentException("two actions for service " + action.service().configName());
      }
    }
    return byService;
  }

  @Override
  public ActionResult execute(WorkItem item) {
    ServiceAction action = actions.get(item.service());
    if (action == null) {
      throw new IllegalStateException("No action for service " + item.service());
    }
    return threads.run(item.table().id(), () -> execute(action, item));
  }

  private static ServicedTable overridden(ServicedTable table, Map<String, String> overrides) {
    return overrides.isEmpty() ? table : table.withHoodieKeysOverridden(overrides);
  }

  private ActionResult execute(ServiceAction action, WorkItem item) {
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    Map<String, String> overrides = action.clientOverrides(item, metaClient);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = action.rollsBackFailedWrites()
        ? tables.writeClientJudgingWriters(overridden(item.table(), overrides), metaClient)
        : tables.writeClient(item.table(), overrides, metaClient)) {
      return action.execute(client, item.instant());
    } catch (HoodieLockException e) {
      // Two processes that both found the plan requested race to start it; Hudi decides under the table lock
      // (BaseHoodieTableServiceClient.validateHeartBeat: the winner's heartbeat is alive) and the loser gets this.
      // The plan is being executed, which is what this run was for.
      if (item.instant().isPresent() && String.valueOf(e.getMessage()).contains(CONCURRENT_HEARTBEAT)) {
        throw new PlanSkippedException("plan " + item.instant().get() + " is being executed by another process "
            + "(Hudi found its heartbeat when this run started)");
      }
      throw e;
    }
  }
}
