package io.huditsd.it.support;

import io.huditsd.it.support.TableReader.Listing;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Assertions on a serviced table's state that the Spark ITs share, whatever storage the table is on. */
public final class TableChecks {
  private TableChecks() {
  }

  /**
   * The metadata table lists the same latest base files as storage: a table service that committed without
   * updating the metadata table leaves Spark (which lists from it) reading stale or missing files.
   */
  public static void metadataTableInSync(TableReader reader) {
    assertThat(reader.latestBaseFiles(Listing.METADATA_TABLE)).as("latest base files listed from the metadata table")
        .containsExactlyInAnyOrderElementsOf(reader.latestBaseFiles(Listing.STORAGE));
  }

  /** No requested or inflight instant on the active timeline; returns that timeline. */
  public static HoodieTimeline nothingPending(TableReader reader) {
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> pending = timeline.filterInflightsAndRequested().getInstants();
    assertThat(pending).as("pending instants").isEmpty();
    return timeline;
  }
}
