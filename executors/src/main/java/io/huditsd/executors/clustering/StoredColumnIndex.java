package io.huditsd.executors.clustering;

import org.apache.parquet.filter2.predicate.Operators;
import org.apache.parquet.filter2.predicate.UserDefinedPredicate;
import org.apache.parquet.internal.column.columnindex.BoundaryOrder;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.PrimitiveIterator;

/**
 * A column chunk's column index as its source file stores it, handed to Parquet's file writer as it is. The writer
 * only reads the lists back to write them into the new file, so decoding every page's minimum and maximum into typed
 * values (Parquet's {@code ColumnIndexBuilder}) and encoding them again, for every chunk of every copied row group,
 * bought nothing. Not for filtering: a copy evaluates no predicate.
 */
record StoredColumnIndex(org.apache.parquet.format.ColumnIndex stored) implements ColumnIndex {
  StoredColumnIndex {
    Objects.requireNonNull(stored, "stored is null");
  }

  /**
   * The index, or null when its lists disagree on the number of pages (Parquet's reader then drops it too): a copy
   * must not carry an index that a reader would misapply to the chunk's pages.
   */
  static StoredColumnIndex ifConsistent(org.apache.parquet.format.ColumnIndex stored) {
    int pages = stored.getNull_pagesSize();
    boolean consistent = stored.getBoundary_order() != null && stored.getMin_valuesSize() == pages
        && stored.getMax_valuesSize() == pages && (!stored.isSetNull_counts() || stored.getNull_countsSize() == pages);
    return consistent ? new StoredColumnIndex(stored) : null;
  }

  @Override
  public BoundaryOrder getBoundaryOrder() {
    return switch (stored.getBoundary_order()) {
      case ASCENDING -> BoundaryOrder.ASCENDING;
      case DESCENDING -> BoundaryOrder.DESCENDING;
      case UNORDERED -> BoundaryOrder.UNORDERED;
    };
  }

  @Override
  public List<Long> getNullCounts() {
    return stored.getNull_counts();
  }

  @Override
  public List<Boolean> getNullPages() {
    return stored.getNull_pages();
  }

  @Override
  public List<ByteBuffer> getMinValues() {
    return stored.getMin_values();
  }

  @Override
  public List<ByteBuffer> getMaxValues() {
    return stored.getMax_values();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.Eq<T> eq) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.NotEq<T> notEq) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.Lt<T> lt) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.LtEq<T> ltEq) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.Gt<T> gt) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>> PrimitiveIterator.OfInt visit(Operators.GtEq<T> gtEq) {
    throw notForFiltering();
  }

  @Override
  public PrimitiveIterator.OfInt visit(Operators.And and) {
    throw notForFiltering();
  }

  @Override
  public PrimitiveIterator.OfInt visit(Operators.Or or) {
    throw notForFiltering();
  }

  @Override
  public PrimitiveIterator.OfInt visit(Operators.Not not) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>, U extends UserDefinedPredicate<T>> PrimitiveIterator.OfInt visit(
      Operators.UserDefined<T, U> udp) {
    throw notForFiltering();
  }

  @Override
  public <T extends Comparable<T>, U extends UserDefinedPredicate<T>> PrimitiveIterator.OfInt visit(
      Operators.LogicalNotUserDefined<T, U> udp) {
    throw notForFiltering();
  }

  private static UnsupportedOperationException notForFiltering() {
    return new UnsupportedOperationException("a column index carried over by a copy is not for filtering");
  }
}
