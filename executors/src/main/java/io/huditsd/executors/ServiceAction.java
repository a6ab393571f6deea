package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;

import java.util.Optional;

/** Executes one table service through Hudi's Java engine. One implementation per service. */
public interface ServiceAction {
  ServiceType service();

  /**
   * Executes the plan at {@code instant} (or, for a service without plans, one round of the service).
   *
   * @param client a write client of the table, configured for the daemon; the caller closes it
   * @return what the execution did; an empty instant when there was nothing to do
   */
  ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant);
}
