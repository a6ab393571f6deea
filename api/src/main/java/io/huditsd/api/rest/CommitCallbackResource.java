package io.huditsd.api.rest;

import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.scheduler.CommitCallbackMetrics;
import io.huditsd.scheduler.CommitCallbackMetrics.Result;
import io.huditsd.scheduler.CommitCallbacks;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Receives Hudi writers' HTTP commit callbacks ({@code hoodie.write.commit.callback.on=true},
 * {@code HoodieWriteCommitHttpCallback}): {@code POST /v1/hoodie/commit-callback} with the key in
 * {@code HUDI-CALLBACK-KEY}. A callback only makes the table's next poll happen now ({@link CommitCallbacks}); the
 * poll reads the timeline as the truth. The writer waits for this answer after its commit (Hudi calls back
 * synchronously), so nothing slow happens here: 202 once the poll is requested.
 */
@Path("/v1/hoodie/commit-callback")
public final class CommitCallbackResource {
  private static final Logger LOG = LoggerFactory.getLogger(CommitCallbackResource.class);
  /** A commit's write stats take about 1 KB per file written; the body is streamed, never held. */
  public static final long MAX_BODY_BYTES = 64L << 20;

  private final Optional<Receiver> receiver;
  private final TableRegistration registration;

  /** What receiving needs, present when {@code commitCallbacks} is configured. */
  public record Receiver(CallbackKey key, CommitCallbacks callbacks, CommitCallbackMetrics metrics) {
    public Receiver {
      Objects.requireNonNull(key, "key is null");
      Objects.requireNonNull(callbacks, "callbacks is null");
      Objects.requireNonNull(metrics, "metrics is null");
    }
  }

  /**
   * @param table the daemon's id of the table
   * @param commitTime the commit time the writer sent
   * @param action the commit's action when the message names it (Hudi 1.2.0's does not)
   * @param poll {@code now}: this replica polls the table now; {@code coalesced}: a poll requested moments ago
   *     covers it; {@code forwarded}: another replica owns the table and was asked to poll it
   */
  public record Answer(String table, String commitTime, Optional<String> action, String poll) {
  }

  /**
   * @param receiver empty when commit callbacks are off: every call answers 404 saying how to turn them on
   * @param registerUnknownTables as for the table service manager endpoints: whether a callback may register a
   *     table the daemon was not configured with
   */
  public CommitCallbackResource(Optional<Receiver> receiver, TableRegistry registry, DiscoveryService discovery,
                                ServicedTables servicedTables, TableProbe probe, boolean registerUnknownTables) {
    this.receiver = Objects.requireNonNull(receiver, "receiver is null");
    this.registration = new TableRegistration(registry, discovery, servicedTables, probe, registerUnknownTables);
  }

  @POST
  @Consumes(MediaType.WILDCARD)
  @Produces(MediaType.APPLICATION_JSON)
  public Response receive(@HeaderParam(CallbackKey.HEADER) String key, InputStream body) {
    Receiver on = receiver.orElseThrow(() -> ApiException.notFound("Commit callbacks are off: add a "
        + "commitCallbacks section (keyFile or keyEnv) to tsd.yml to receive them"));
    CallbackKey.Verdict verdict = on.key().check(key);
    if (verdict != CallbackKey.Verdict.VALID) {
      on.metrics().received("", Result.UNAUTHORIZED);
      LOG.warn("Commit callback refused: {}", verdict == CallbackKey.Verdict.MISSING ? "no key" : "wrong key");
      throw ApiException.status(verdict.status(), verdict.message());
    }
    CommitCallbackMessage message;
    try {
      message = CommitCallbackMessage.read(body);
    } catch (ApiException e) {
      on.metrics().received("", Result.INVALID);
      throw e;
    }
    TableState state;
    try {
      state = registration.servicedOrRegistered(TablePaths.normalize(message.basePath()), "basePath");
    } catch (ApiException e) {
      on.metrics().received("", e.getResponse().getStatus() == 404 ? Result.UNKNOWN_TABLE : Result.INVALID);
      throw e;
    }
    String tableId = state.table().id();
    CommitCallbacks.Route route = on.callbacks().received(tableId, message.commitInstant());
    on.metrics().received(tableId, route == CommitCallbacks.Route.FORWARDED ? Result.FORWARDED : Result.ACCEPTED);
    String poll = switch (route) {
      case POLL_NOW -> "now";
      case COALESCED -> "coalesced";
      case FORWARDED -> "forwarded";
    };
    if (route == CommitCallbacks.Route.COALESCED) {
      LOG.debug("Commit callback table={} commit={} files={}: coalesced", tableId, message.commitTime(),
          message.writeStats());
    } else {
      LOG.info("Commit callback table={} commit={} action={} files={} from writer table_name={}: poll {}", tableId,
          message.commitTime(), message.action().orElse("-"), message.writeStats(),
          message.tableName().orElse("-"), poll.toLowerCase(Locale.ROOT));
    }
    return Response.accepted(new Answer(tableId, message.commitTime(), message.action(), poll)).build();
  }
}
