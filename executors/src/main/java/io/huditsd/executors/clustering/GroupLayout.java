package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.avro.HoodieBloomFilterWriteSupport;
import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterFactory;
import org.apache.hudi.common.bloom.BloomFilterTypeCode;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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

  private final Configuration conf;
  private final long targetFileBytes;

  /**
   * @param targetFileBytes an output file takes row groups until the next one would take it past this size
   *     ({@code hoodie.clustering.plan.strategy.target.file.max.bytes})
   */
  GroupLayout(Configuration conf, long targetFileBytes) {
    this.conf = Objects.requireNonNull(conf, "conf is null");
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
    List<SourceFile> sources = new ArrayList<>(files.size());
    List<PlannedOutput> outputs = new ArrayList<>();
    OutputBuilder current = new OutputBuilder();
    String firstBloomType = null;
    boolean firstHasBloom = false;
    for (Path file : files) {
      ParquetMetadata footer;
      try {
        footer = ParquetFileReader.readFooter(HadoopInputFile.fromPath(file, conf), ParquetMetadataConverter.NO_FILTER);
      } catch (IOException | RuntimeException e) {
        return new Ineligible(FallbackReason.UNREADABLE_FOOTER, "cannot read the Parquet footer of " + file + ": " + e);
      }
      Map<String, String> keyValues = footer.getFileMetaData().getKeyValueMetaData();
      String bloom = keyValues.get(BLOOM_FILTER_KEY);
      String bloomType = bloomTypeOf(keyValues);
      if (sources.isEmpty()) {
        firstHasBloom = bloom != null;
        firstBloomType = bloomType;
      } else if (firstHasBloom != (bloom != null) || (bloom != null && !bloomType.equals(firstBloomType))) {
        return new Ineligible(FallbackReason.BLOOM_FILTER_MISMATCH, file + " has "
            + (bloom == null ? "no bloom filter" : "a " + bloomType + " bloom filter") + ", " + files.get(0) + " has "
            + (firstHasBloom ? "a " + firstBloomType + " bloom filter" : "none"));
      }
      SourceFile source = new SourceFile(file, withoutBloomFilter(footer));
      sources.add(source);
      for (BlockMetaData block : footer.getBlocks()) {
        if (block.getRowCount() == 0) {
          continue;
        }
        if (!current.isEmpty() && current.bytes + block.getCompressedSize() > targetFileBytes) {
          outputs.add(current.build());
          current = new OutputBuilder();
        }
        current.add(source, block, bloom, bloomType, keyValues.get(MIN_KEY), keyValues.get(MAX_KEY));
      }
    }
    if (!current.isEmpty()) {
      outputs.add(current.build());
    }
    if (sources.isEmpty()) {
      return new Ineligible(FallbackReason.NOT_PARQUET_BASE_FILE, "the group has no base files");
    }
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

  private static MessageType schemaOf(SourceFile source) {
    return source.footer().getFileMetaData().getSchema();
  }

  /** Hudi's readers take a footer without a type code for a simple bloom filter. */
  private static String bloomTypeOf(Map<String, String> keyValues) {
    String code = keyValues.get(BLOOM_TYPE_KEY);
    return code == null || code.isEmpty() ? BloomFilterTypeCode.SIMPLE.name() : code;
  }

  private static ParquetMetadata withoutBloomFilter(ParquetMetadata footer) {
    FileMetaData file = footer.getFileMetaData();
    Map<String, String> keyValues = new HashMap<>(file.getKeyValueMetaData());
    keyValues.remove(BLOOM_FILTER_KEY);
    keyValues.remove(BLOOM_TYPE_KEY);
    keyValues.remove(MIN_KEY);
    keyValues.remove(MAX_KEY);
    return new ParquetMetadata(new FileMetaData(file.getSchema(), keyValues, file.getCreatedBy()), footer.getBlocks());
  }

  /** Collects one output's row groups and merges the footer entries of the files they come from. */
  private static final class OutputBuilder {
    private final List<PlannedOutput.RowGroup> rowGroups = new ArrayList<>();
    private long bytes;
    private SourceFile lastSource;
    private BloomFilter bloomFilter;
    private String minKey;
    private String maxKey;

    boolean isEmpty() {
      return rowGroups.isEmpty();
    }

    void add(SourceFile source, BlockMetaData block, String bloom, String bloomType, String min, String max) {
      rowGroups.add(new PlannedOutput.RowGroup(source, block));
      bytes += block.getCompressedSize();
      if (source == lastSource) {
        return;
      }
      // A source whose row groups span two outputs is merged into both: each output's filter and key range then
      // cover every key it holds (and a few it does not, which only costs the index a look).
      lastSource = source;
      if (bloom != null) {
        BloomFilter filter = BloomFilterFactory.fromString(bloom, bloomType);
        if (bloomFilter == null) {
          bloomFilter = filter;
        } else {
          bloomFilter.or(filter);
        }
      }
      if (min != null && (minKey == null || min.compareTo(minKey) < 0)) {
        minKey = min;
      }
      if (max != null && (maxKey == null || max.compareTo(maxKey) > 0)) {
        maxKey = max;
      }
    }

    PlannedOutput build() {
      return new PlannedOutput(rowGroups, Optional.ofNullable(bloomFilter), Optional.ofNullable(minKey),
          Optional.ofNullable(maxKey));
    }
  }
}
