package io.huditsd.executors;

/**
 * A way of executing a service's plan. {@link PlanRunner} has checked, before calling it, that the table's instant
 * files are readable and that the plan is still pending and held by no live process; the engine only executes.
 * Hudi's Java engine in this JVM ({@link JavaEngine}) is the one engine today; another engine (Spark) is a second
 * implementation, chosen per work item, never a branch inside this one.
 *
 * <p>An engine must keep the plan's heartbeat while it runs a service whose {@link ServiceAction#keepsHeartbeat()}
 * says so: that is how every other process tells its run from an abandoned plan.
 */
public interface PlanEngine {
  /**
   * Executes {@code item}.
   *
   * @throws PlanSkippedException when the plan turned out not to be this run's to execute (another process started
   *     or completed it)
   */
  ActionResult execute(WorkItem item);
}
