package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The copier writes the same bytes whichever way it reads its sources: buffered whole (small files, the common case)
 * or streamed a row group at a time, or straight from the stream (files over the buffer's cap).
 */
class TestRowGroupCopier {
  private final CopyTables tables = new CopyTables();
  private final ExecutorService footerReaders = Executors.newFixedThreadPool(2);

  @TempDir
  java.nio.file.Path directory;

  @AfterEach
  void stop() {
    footerReaders.shutdownNow();
  }

  @Test
  void sourcesBufferedOrStreamedMakeTheSameFile() throws IOException {
    GroupLayout.Layout layout = layoutOfFilesOfDifferentSizes();
    PlannedOutput output = layout.outputs().get(0);
    List<Long> sizes = output.rowGroups().stream().map(rowGroup -> rowGroup.source().footerOffset()).distinct()
        .sorted().toList();
    assertThat(sizes).as("source sizes").hasSizeGreaterThan(2);
    int median = Math.toIntExact(sizes.get(sizes.size() / 2));

    byte[] reference = write("reference", new RowGroupCopier(tables.hadoop()), layout, output);
    assertThat(tables.rows(new Path(directory.resolve("reference").resolve("out.parquet").toUri())))
        .as("rows of the reference output").hasSize(Math.toIntExact(output.rowGroups().stream()
            .mapToLong(rowGroup -> rowGroup.block().getRowCount()).sum()));
    long largestRowGroup = output.rowGroups().stream().mapToLong(rowGroup -> rowGroup.block().getCompressedSize())
        .max().orElseThrow();
    assertThat(largestRowGroup).as("row groups smaller than their files").isLessThan(sizes.get(sizes.size() - 1));
    // The largest source over the cap: streamed, its row groups buffered one at a time.
    int belowLargest = Math.toIntExact(sizes.get(sizes.size() - 1) - 1);
    assertThat(write("row-groups", new RowGroupCopier(tables.hadoop(), belowLargest), layout, output))
        .as("the largest source streamed, its row groups buffered").isEqualTo(reference);
    // The larger half of the sources over the cap, then every one; row groups over the cap come straight from the
    // stream.
    assertThat(write("mixed", new RowGroupCopier(tables.hadoop(), median), layout, output))
        .as("sources up to %d bytes buffered, larger ones streamed", median).isEqualTo(reference);
    assertThat(write("streamed", new RowGroupCopier(tables.hadoop(), 0), layout, output))
        .as("every source streamed").isEqualTo(reference);
    RowGroupCopier reused = new RowGroupCopier(tables.hadoop(), median);
    write("first", reused, layout, output);
    assertThat(write("again", reused, layout, output)).as("the same copier's buffer used again")
        .isEqualTo(reference);
  }

  /**
   * One output of every base file of a partition, files of 20 to 400 rows (one commit each, no small-file packing),
   * the larger ones of several row groups.
   */
  private GroupLayout.Layout layoutOfFilesOfDifferentSizes() throws IOException {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2,
        Map.of());
    Map<String, String> newFiles = Map.of("hoodie.parquet.small.file.limit", "0",
        "hoodie.parquet.block.size", "4096");
    int first = 0;
    for (int rows : new int[] {400, 20, 150, 60, 300}) {
      tables.upsert(table, CopyTables.V2, first, rows, 1, 3, newFiles);
      first += rows;
    }
    List<Path> files = tables.latestBaseFiles(table).stream()
        .filter(file -> file.getParent().getName().equals("eu"))
        .sorted(Comparator.comparing(Path::getName)).toList();
    GroupLayout.Result result = new GroupLayout(tables.hadoop(), Long.MAX_VALUE, footerReaders).plan(files);
    assertThat(result).isInstanceOf(GroupLayout.Layout.class);
    GroupLayout.Layout layout = (GroupLayout.Layout) result;
    assertThat(layout.outputs()).hasSize(1);
    return layout;
  }

  /** Writes the output as {@code name/out.parquet} (one file name, so that {@code _hoodie_file_name} agrees). */
  private byte[] write(String name, RowGroupCopier copier, GroupLayout.Layout layout, PlannedOutput output)
      throws IOException {
    java.nio.file.Path target = Files.createDirectories(directory.resolve(name)).resolve("out.parquet");
    copier.write(new Path(target.toUri()), layout.schema(), layout.keyValueMetadata(), output);
    return Files.readAllBytes(target);
  }
}
