package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.avro.HoodieBloomFilterWriteSupport;
import org.apache.hudi.common.bloom.BloomFilterTypeCode;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Pass one of copying a clustering group: reads each base file's footer once, decides whether the files can be
 * stitched together, and assigns their row groups to output files that roll over at the target size. Nothing is
 * written, so an ineligible group falls back without anything to undo.
 */
final class GroupLayout {
  static final String BLOOM_FILTER_KEY = HoodieBloomFilterWriteSupport.HOODIE_AVRO_BLOOM_FILTER_METADATA_KEY;
  static final String BLOOM_TYPE_KEY = HoodieBloomFilterWriteSupport.HOODIE_BLOOM_FILTER_TYPE_CODE;
  static final String MIN_KEY = HoodieBloomFilterWriteSupport.HOODIE_MIN_RECORD_KEY_FOOTER;
  static final String MAX_KEY = HoodieBloomFilterWriteSupport.HOODIE_MAX_RECORD_KEY_FOOTER;

  private static final ColumnPath RECORD_KEY_COLUMN = ColumnPath.get(HoodieRecord.RECORD_KEY_METADATA_FIELD);
  /** Files whose footers are read ahead of the one being laid out. */
  private static final int WINDOW = 4;

  private final Configuration conf;
  private final long targetFileBytes;
  private final ExecutorService footerReaders;
  /** Arrays the footers are read into, and those their bloom filters are decoded into (see ScratchArrays). */
  private final ScratchArrays footerArrays = new ScratchArrays(WINDOW);
  private final ScratchArrays filterArrays = new ScratchArrays(WINDOW);

  /**
   * @param targetFileBytes an output file takes row groups until the next one would take it past this size
   *     ({@code hoodie.clustering.plan.strategy.target.file.max.bytes})
   * @param footerReaders threads that read footers ahead; owned by the caller
   */
  GroupLayout(Configuration conf, long targetFileBytes, ExecutorService footerReaders) {
    this.conf = Objects.requireNonNull(conf, "conf is null");
    this.footerReaders = Objects.requireNonNull(footerReaders, "footerReaders is null");
    if (targetFileBytes <= 0) {
      throw new IllegalArgumentException("targetFileBytes must be positive: " + targetFileBytes);
    }
    this.targetFileBytes = targetFileBytes;
  }

  /** The outcome of pass one. */
  sealed interface Result permits Layout, Ineligible {
  }

  /**
   * The group can be copied.
   *
   * @param schema the schema of the outputs: that of the widest source, which every other source's schema is part
   *     of (columns a source lacks are written as nulls)
   * @param keyValueMetadata footer entries of the source with that schema, without the bloom filter and key range
   * @param outputs the output files, in order
   */
  record Layout(MessageType schema, Map<String, String> keyValueMetadata, List<PlannedOutput> outputs)
      implements Result {
    Layout {
      Objects.requireNonNull(schema, "schema is null");
      keyValueMetadata = Map.copyOf(keyValueMetadata);
      outputs = List.copyOf(outputs);
    }
  }

  /** The group must be rewritten. */
  record Ineligible(FallbackReason reason, String detail) implements Result {
    Ineligible {
      Objects.requireNonNull(reason, "reason is null");
      Objects.requireNonNull(detail, "detail is null");
    }
  }

  Result plan(List<Path> files) {
    Assignment assignment = new Assignment(files);
    Optional<Ineligible> refused = readFootersInOrder(files, assignment::take);
    if (refused.isPresent()) {
      return refused.get();
    }
    return assignment.finish();
  }

  /**
   * Hands each file's footer to {@code step}, in the order of {@code files}, until a step refuses the group.
   * Footers are read and bloom filters decoded a few files ahead, in parallel: at most WINDOW files' filters are
   * held at once, and reads still in flight when a step refuses are cancelled.
   */
  private Optional<Ineligible> readFootersInOrder(List<Path> files,
                                                  Function<FooterRead, Optional<Ineligible>> step) {
    Deque<Future<FooterRead>> window = new ArrayDeque<>();
    int next = 0;
    try {
      while (next < files.size() && window.size() < WINDOW) {
        window.add(submit(files.get(next++)));
      }
      while (!window.isEmpty()) {
        FooterRead read = await(window.poll());
        if (next < files.size()) {
          window.add(submit(files.get(next++)));
        }
        Optional<Ineligible> refused = step.apply(read);
        if (refused.isPresent()) {
          return refused;
        }
        // The step merged the filter into its outputs' own (BloomFilterUnion keeps no array it is given).
        filterArrays.giveBack(read.bloomBytes());
      }
      return Optional.empty();
    } finally {
      window.forEach(pending -> pending.cancel(true));
    }
  }

  /** The outputs' schema, that of the widest source, if every source's schema fits it. */
  private static Result layoutOf(List<SourceFile> sources, List<PlannedOutput> outputs) {
    SourceFile widest = sources.get(0);
    for (SourceFile source : sources) {
      if (schemaOf(source).getColumns().size() > schemaOf(widest).getColumns().size()) {
        widest = source;
      }
    }
    MessageType schema = schemaOf(widest);
    for (SourceFile source : sources) {
      Optional<String> problem = SchemaFit.problem(schema, schemaOf(source));
      if (problem.isPresent()) {
        return new Ineligible(FallbackReason.SCHEMA_MISMATCH, source.path() + " does not fit the schema of "
            + widest.path() + ": " + problem.get());
      }
    }
    return new Layout(schema, widest.footer().getFileMetaData().getKeyValueMetaData(), outputs);
  }

  /** One pass's sources and outputs, taken footer by footer in the group's order. */
  private final class Assignment {
    private final List<Path> files;
    private final List<SourceFile> sources = new ArrayList<>();
    private final List<PlannedOutput> outputs = new ArrayList<>();
    private OutputBuilder current = new OutputBuilder();
    private boolean firstHasBloom;
    private String firstBloomType;

    Assignment(List<Path> files) {
      this.files = files;
    }

    /** Adds the file's row groups to the outputs, or says why the group cannot be copied. */
    Optional<Ineligible> take(FooterRead read) {
      Optional<Ineligible> unfit = unfitFooter(read);
      if (unfit.isPresent()) {
        return unfit;
      }
      sources.add(read.source());
      return assignRowGroups(read);
    }

    /** Every source must be readable and have the first source's kind of bloom filter, or none like it. */
    private Optional<Ineligible> unfitFooter(FooterRead read) {
      if (read.failure() != null) {
        return Optional.of(new Ineligible(FallbackReason.UNREADABLE_FOOTER, "cannot read the Parquet footer of "
            + read.path() + ": " + read.failure()));
      }
      if (read.encrypted()) {
        return Optional.of(new Ineligible(FallbackReason.ENCRYPTED, read.path() + " has encrypted columns, which"
            + " a copy would carry without their encryption metadata"));
      }
      if (read.hasBloom() && !BloomFilterUnion.isKnownType(read.bloomType())) {
        return Optional.of(new Ineligible(FallbackReason.BLOOM_FILTER_MISMATCH, read.path() + " has a bloom filter"
            + " of unknown type " + read.bloomType()));
      }
      if (sources.isEmpty()) {
        firstHasBloom = read.hasBloom();
        firstBloomType = read.bloomType();
      } else if (firstHasBloom != read.hasBloom() || (read.hasBloom() && !read.bloomType().equals(firstBloomType))) {
        return Optional.of(new Ineligible(FallbackReason.BLOOM_FILTER_MISMATCH, read.path() + " has "
            + (read.hasBloom() ? "a " + read.bloomType() + " bloom filter" : "no bloom filter") + ", "
            + files.get(0) + " has " + (firstHasBloom ? "a " + firstBloomType + " bloom filter" : "none")));
      }
      return Optional.empty();
    }

    /** Row groups go to the current output until the next would take it past the target size. */
    private Optional<Ineligible> assignRowGroups(FooterRead read) {
      SourceFile source = read.source();
      for (BlockMetaData block : source.footer().getBlocks()) {
        if (block.getRowCount() == 0) {
          continue;
        }
        if (!current.isEmpty() && current.bytes + block.getCompressedSize() > targetFileBytes) {
          outputs.add(current.build());
          current = new OutputBuilder();
        }
        if (!current.add(source, block, read)) {
          return Optional.of(new Ineligible(FallbackReason.BLOOM_FILTER_MISMATCH, read.path() + " has a bloom"
              + " filter of another size than " + files.get(0) + "'s (the writers' bloom settings changed)"));
        }
      }
      return Optional.empty();
    }

    /** After the last footer: the layout, or why the group as a whole cannot be copied. */
    Result finish() {
      if (!current.isEmpty()) {
        outputs.add(current.build());
      }
      if (sources.isEmpty()) {
        return new Ineligible(FallbackReason.NOT_PARQUET_BASE_FILE, "the group has no base files");
      }
      return layoutOf(sources, outputs);
    }
  }

  private Future<FooterRead> submit(Path file) {
    return footerReaders.submit(() -> read(file));
  }

  private static FooterRead await(Future<FooterRead> pending) {
    try {
      return pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading Parquet footers", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot read Parquet footers", e.getCause());
    }
  }

  private FooterRead read(Path file) {
    try {
      HadoopInputFile input = HadoopInputFile.fromPath(file, conf);
      // The bloom filter comes apart from the footer's entries, as the footer's bytes: decoded from them, it is
      // never a string (about 580 KB per file at Hudi's defaults). Both go into arrays used again for later files.
      FooterReader.Footer<byte[]> footer = FooterReader.read(input, BLOOM_FILTER_KEY,
          serialized -> BloomFilterUnion.decode(serialized, filterArrays), footerArrays);
      if (footer.storedRowGroups() == null) {
        return FooterRead.encrypted(file);
      }
      Map<String, String> keyValues = footer.metadata().getFileMetaData().getKeyValueMetaData();
      String bloomType = bloomTypeOf(keyValues);
      return new FooterRead(file,
          new SourceFile(file, footer.offset(), withoutBloomFilter(footer.metadata()), footer.storedRowGroups()),
          footer.heldValue(), bloomType, keyValues.get(MIN_KEY), keyValues.get(MAX_KEY), false, null);
    } catch (IOException | RuntimeException e) {
      return new FooterRead(file, null, null, null, null, null, false, e);
    }
  }

  /**
   * A footer as read, with the source's bloom filter Base64-decoded ahead (never changed: a source split between
   * outputs gives the same bytes to each). No source when the file has encrypted columns or could not be read.
   */
  private record FooterRead(Path path, SourceFile source, byte[] bloomBytes, String bloomType, String minKey,
                            String maxKey, boolean encrypted, Exception failure) {
    static FooterRead encrypted(Path path) {
      return new FooterRead(path, null, null, null, null, null, true, null);
    }

    boolean hasBloom() {
      return bloomBytes != null;
    }
  }

  private static MessageType schemaOf(SourceFile source) {
    return source.footer().getFileMetaData().getSchema();
  }

  /** Hudi's readers take a footer without a type code for a simple bloom filter. */
  private static String bloomTypeOf(Map<String, String> keyValues) {
    String code = keyValues.get(BLOOM_TYPE_KEY);
    return code == null || code.isEmpty() ? BloomFilterTypeCode.SIMPLE.name() : code;
  }

  /** The footer as read (the filter itself already held apart), without the filter's type and the key range. */
  private static ParquetMetadata withoutBloomFilter(ParquetMetadata footer) {
    Map<String, String> keyValues = new HashMap<>(footer.getFileMetaData().getKeyValueMetaData());
    keyValues.remove(BLOOM_TYPE_KEY);
    keyValues.remove(MIN_KEY);
    keyValues.remove(MAX_KEY);
    return FooterReader.withKeyValues(footer, keyValues);
  }

  /** Collects one output's row groups and merges the footer entries of the files they come from. */
  private static final class OutputBuilder {
    private final List<PlannedOutput.RowGroup> rowGroups = new ArrayList<>();
    private long bytes;
    private SourceFile lastSource;
    private SourceFile lastKeyRangeSource;
    private BloomFilterUnion bloomFilter;
    private String minKey;
    private String maxKey;

    boolean isEmpty() {
      return rowGroups.isEmpty();
    }

    /** False when the source's bloom filter cannot be OR-ed with the others (another size). */
    boolean add(SourceFile source, BlockMetaData block, FooterRead read) {
      rowGroups.add(new PlannedOutput.RowGroup(source, block));
      bytes += block.getCompressedSize();
      // The key range comes from the row group's statistics of _hoodie_record_key when it has them (exact, also
      // for a source split between outputs), else from the source's footer (covers the whole source).
      Optional<String[]> range = recordKeyRange(block);
      if (range.isPresent()) {
        widenKeyRange(range.get()[0], range.get()[1]);
      } else if (source != lastKeyRangeSource) {
        lastKeyRangeSource = source;
        widenKeyRange(read.minKey(), read.maxKey());
      }
      if (source == lastSource) {
        return true;
      }
      // A source whose row groups span two outputs is merged into both: each output's filter then covers every key
      // it holds (and a few it does not, which only costs the index a look).
      lastSource = source;
      if (!read.hasBloom()) {
        return true;
      }
      if (bloomFilter == null) {
        bloomFilter = new BloomFilterUnion(read.bloomType(), read.bloomBytes());
        return true;
      }
      return bloomFilter.add(read.bloomBytes());
    }

    private void widenKeyRange(String min, String max) {
      if (min != null && (minKey == null || min.compareTo(minKey) < 0)) {
        minKey = min;
      }
      if (max != null && (maxKey == null || max.compareTo(maxKey) > 0)) {
        maxKey = max;
      }
    }

    private static Optional<String[]> recordKeyRange(BlockMetaData block) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        if (chunk.getPath().equals(RECORD_KEY_COLUMN)) {
          Statistics<?> statistics = chunk.getStatistics();
          if (statistics == null || !statistics.hasNonNullValue() || statistics.getNumNulls() > 0
              || !(statistics.genericGetMin() instanceof Binary min)
              || !(statistics.genericGetMax() instanceof Binary max)) {
            return Optional.empty();
          }
          return Optional.of(new String[] {min.toStringUsingUTF8(), max.toStringUsingUTF8()});
        }
      }
      return Optional.empty();
    }

    PlannedOutput build() {
      return new PlannedOutput(rowGroups, Optional.ofNullable(bloomFilter), Optional.ofNullable(minKey),
          Optional.ofNullable(maxKey));
    }
  }
}
