package io.huditsd.api.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One metric family that a collector fills sample by sample at scrape time (label names once, then label values and
 * a value per sample) and turns into the Prometheus client's snapshot. The client's snapshot builders want each
 * sample's labels as name-value pairs; the collectors read their figures table by table, so this keeps their code
 * about figures rather than about the client's data model.
 */
final class LabelledFamily {
  /** How the family is exposed. */
  enum Type {
    GAUGE,
    /** Named without {@code _total}: the exposition adds it. */
    COUNTER,
    /** Named with {@code _info}; every sample is 1 (OpenMetrics' info type; a gauge in the text format 0.0.4). */
    INFO
  }

  private record Sample(Labels labels, double value) {
  }

  /**
   * The client's order of a snapshot's data points (by their labels: names, then values, both in the order of the
   * names sorted) for samples that all have the same names, as a family's do: by values alone.
   */
  private static final Comparator<Sample> CLIENT_ORDER = (a, b) -> {
    Labels left = a.labels();
    Labels right = b.labels();
    for (int i = 0; i < left.size(); i++) {
      int order = left.getValue(i).compareTo(right.getValue(i));
      if (order != 0) {
        return order;
      }
    }
    return 0;
  };

  private final Type type;
  private final String name;
  private final String help;
  private final String[] labelNames;
  private final List<Sample> samples = new ArrayList<>();

  LabelledFamily(Type type, String name, String help, List<String> labelNames) {
    this.type = Objects.requireNonNull(type, "type is null");
    this.name = Objects.requireNonNull(name, "name is null");
    this.help = Objects.requireNonNull(help, "help is null");
    this.labelNames = labelNames.toArray(String[]::new);
  }

  static LabelledFamily gauge(String name, String help, List<String> labelNames) {
    return new LabelledFamily(Type.GAUGE, name, help, labelNames);
  }

  static LabelledFamily counter(String name, String help, List<String> labelNames) {
    return new LabelledFamily(Type.COUNTER, name, help, labelNames);
  }

  static LabelledFamily info(String name, String help, List<String> labelNames) {
    return new LabelledFamily(Type.INFO, name, help, labelNames);
  }

  /** A sample of the family without labels. */
  static MetricSnapshot single(Type type, String name, String help, double value) {
    LabelledFamily family = new LabelledFamily(type, name, help, List.of());
    family.add(List.of(), value);
    return family.snapshot();
  }

  /** Adds a sample; {@code labelValues} in the order of the family's label names. */
  void add(List<String> labelValues, double value) {
    if (labelValues.size() != labelNames.length) {
      throw new IllegalArgumentException(name + " has " + labelNames.length + " labels, got " + labelValues);
    }
    if (type == Type.INFO && value != 1) {
      throw new IllegalArgumentException(name + " is an info metric: its samples are 1, got " + value);
    }
    samples.add(new Sample(Labels.of(labelNames, labelValues.toArray(String[]::new)), value));
  }

  MetricSnapshot snapshot() {
    // The client sorts every snapshot's data points by their labels, comparing names and then values. At 10,000
    // tables that sort was a third of a scrape's CPU (docs/benchmarks.md, "Poll cost: 10,000 idle tables"). Sorted
    // here first, by values alone, the client's sort finds them in order and is one pass.
    samples.sort(CLIENT_ORDER);
    return switch (type) {
      case GAUGE -> {
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(name).help(help);
        samples.forEach(sample -> builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
            .labels(sample.labels()).value(sample.value()).build()));
        yield builder.build();
      }
      case COUNTER -> {
        CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(help);
        samples.forEach(sample -> builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
            .labels(sample.labels()).value(sample.value()).build()));
        yield builder.build();
      }
      case INFO -> {
        InfoSnapshot.Builder builder = InfoSnapshot.builder().name(name).help(help);
        samples.forEach(sample -> builder.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder()
            .labels(sample.labels()).build()));
        yield builder.build();
      }
    };
  }
}
