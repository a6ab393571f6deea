package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
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
 * or streamed a row group at a time, or straight from the stream (files over the buffer's cap); and it carries each
 * chunk's page indexes over as the source stored them.
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
   * Every copied chunk's column index is the source's, page for page, and its offset index the source's moved by as
   * much as the chunk moved; the file-name chunks, written anew, have indexes of their own.
   */
  @Test
  void pageIndexesAreTheSourcesMovedWithTheirChunks() throws IOException {
    GroupLayout.Layout layout = layoutOfFilesOfDifferentSizes();
    PlannedOutput output = layout.outputs().get(0);
    write("indexes", new RowGroupCopier(tables.hadoop()), layout, output);
    java.nio.file.Path target = directory.resolve("indexes").resolve("out.parquet");
    int compared = 0;
    try (ParquetFileReader copy = open(new Path(target.toUri()))) {
      List<BlockMetaData> blocks = copy.getFooter().getBlocks();
      assertThat(blocks).hasSameSizeAs(output.rowGroups());
      for (int i = 0; i < blocks.size(); i++) {
        PlannedOutput.RowGroup rowGroup = output.rowGroups().get(i);
        try (ParquetFileReader source = open(rowGroup.source().path())) {
          for (ColumnChunkMetaData chunk : blocks.get(i).getColumns()) {
            ColumnIndex columnIndex = copy.readColumnIndex(chunk);
            OffsetIndex offsetIndex = copy.readOffsetIndex(chunk);
            assertThat(columnIndex).as("column index of %s", chunk.getPath()).isNotNull();
            assertThat(offsetIndex).as("offset index of %s", chunk.getPath()).isNotNull();
            if (chunk.getPath().toDotString().equals(HoodieRecord.FILENAME_METADATA_FIELD)) {
              continue;
            }
            ColumnChunkMetaData from = rowGroup.block().getColumns().stream()
                .filter(sourceChunk -> sourceChunk.getPath().equals(chunk.getPath())).findFirst().orElseThrow();
            MovedPageIndexes.assertMoved(source, from, copy, chunk);
            compared++;
          }
        }
      }
    }
    assertThat(compared).as("chunks compared with their sources").isGreaterThan(output.rowGroups().size());
    assertThat(tables.rows(new Path(target.toUri()))).as("rows of the copy").hasSize(Math.toIntExact(
        output.rowGroups().stream().mapToLong(rowGroup -> rowGroup.block().getRowCount()).sum()));
  }

  private ParquetFileReader open(Path file) throws IOException {
    return ParquetFileReader.open(HadoopInputFile.fromPath(file, tables.hadoop()));
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
