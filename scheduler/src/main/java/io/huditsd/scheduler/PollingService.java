package io.huditsd.scheduler;

import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * Quartz drives one poll job per table on the table's interval, on a bounded thread pool. Jobs of one table never
 * overlap ({@link DisallowConcurrentExecution}); a slow or failing table holds one poll thread and never delays the
 * others beyond that. First polls are spread evenly over one interval ({@link FirstPolls}) so that a thousand tables
 * do not poll at once and a store sees a steady rate of requests.
 */
public final class PollingService implements TableRegistry.Listener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PollingService.class);
  private static final String POLLER = "tsd.poller";
  private static final String REGISTRY = "tsd.registry";
  private static final String GROUP = "tsd-polls";

  private final Scheduler scheduler;
  private final FirstPolls firstPolls;

  public PollingService(TablePoller poller, TableRegistry registry, int threads) {
    this(poller, registry, threads, new FirstPolls(Clock.systemUTC()));
  }

  /** @param firstPolls when each table added polls first */
  public PollingService(TablePoller poller, TableRegistry registry, int threads, FirstPolls firstPolls) {
    Objects.requireNonNull(poller, "poller is null");
    this.firstPolls = Objects.requireNonNull(firstPolls, "firstPolls is null");
    Properties properties = new Properties();
    properties.setProperty("org.quartz.scheduler.instanceName", "tsd-polling-" + UUID.randomUUID());
    properties.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    properties.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
    properties.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
    properties.setProperty("org.quartz.threadPool.threadNamePrefix", "tsd-poll");
    properties.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    properties.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
    properties.setProperty("org.quartz.jobStore.misfireThreshold", "60000");
    try {
      scheduler = new StdSchedulerFactory(properties).getScheduler();
      scheduler.getContext().put(POLLER, poller);
      scheduler.getContext().put(REGISTRY, registry);
    } catch (SchedulerException e) {
      throw new IllegalStateException("Cannot create the poll scheduler", e);
    }
  }

  public void start() throws SchedulerException {
    scheduler.start();
  }

  /** Whether the scheduler is started and not shut down. */
  public boolean isRunning() {
    try {
      return scheduler.isStarted() && !scheduler.isShutdown() && !scheduler.isInStandbyMode();
    } catch (SchedulerException e) {
      return false;
    }
  }

  @Override
  public void added(TableState state) {
    long intervalMillis = state.table().pollInterval().toMillis();
    JobDetail job = JobBuilder.newJob(PollJob.class)
        .withIdentity(state.table().id(), GROUP)
        .usingJobData("table", state.table().id())
        .build();
    Trigger trigger = TriggerBuilder.newTrigger()
        .withIdentity(state.table().id(), GROUP)
        // Spread over one interval: with a shorter window every table would poll in the same burst, each interval.
        .startAt(Date.from(firstPolls.next(state.table().pollInterval())))
        .withSchedule(SimpleScheduleBuilder.simpleSchedule()
            .withIntervalInMilliseconds(intervalMillis)
            .repeatForever()
            .withMisfireHandlingInstructionNextWithRemainingCount())
        .build();
    try {
      scheduler.scheduleJob(job, trigger);
    } catch (SchedulerException e) {
      throw new IllegalStateException("Cannot schedule polls of table " + state.table().id(), e);
    }
  }

  /** When the table's next scheduled poll fires; empty when it is not scheduled. */
  Optional<Instant> nextPoll(String tableId) {
    try {
      return Optional.ofNullable(scheduler.getTrigger(new TriggerKey(tableId, GROUP)))
          .map(Trigger::getNextFireTime)
          .map(Date::toInstant);
    } catch (SchedulerException e) {
      throw new IllegalStateException("Cannot read the poll schedule of table " + tableId, e);
    }
  }

  @Override
  public void removed(TableState state) {
    try {
      scheduler.deleteJob(new JobKey(state.table().id(), GROUP));
    } catch (SchedulerException e) {
      LOG.warn("Cannot unschedule polls of table {}", state.table().id(), e);
    }
  }

  /** Polls a table now, outside its schedule (after a REST trigger, for instance). */
  public void pollNow(String tableId) {
    try {
      scheduler.triggerJob(new JobKey(tableId, GROUP));
    } catch (SchedulerException e) {
      throw new IllegalStateException("Cannot trigger a poll of table " + tableId, e);
    }
  }

  @Override
  public void close() {
    try {
      scheduler.shutdown(true);
    } catch (SchedulerException e) {
      LOG.warn("Poll scheduler did not shut down cleanly", e);
    }
  }

  /** The Quartz job: one poll of one table. */
  @DisallowConcurrentExecution
  public static final class PollJob implements Job {
    @Override
    public void execute(JobExecutionContext context) {
      try {
        TablePoller poller = (TablePoller) context.getScheduler().getContext().get(POLLER);
        TableRegistry registry = (TableRegistry) context.getScheduler().getContext().get(REGISTRY);
        String tableId = context.getMergedJobDataMap().getString("table");
        registry.get(tableId).ifPresent(state -> poller.poll(state, false));
      } catch (SchedulerException | RuntimeException e) {
        // Never let an exception reach Quartz: it would log and carry on anyway, but without our context.
        LOG.error("Poll job failed", e);
      }
    }
  }
}
