package io.huditsd.executors.clustering;

import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.util.Optional;

/**
 * Whether a source file's row groups can go into a file of another schema unchanged: every top-level field of the
 * source must be in the target exactly as it is (name, type, repetition, annotations), and every target field the
 * source lacks must be optional, so that it can be written as nulls. A changed type or a dropped column is a
 * mismatch: only a rewrite can convert values.
 */
final class SchemaFit {
  private SchemaFit() {
  }

  static Optional<String> problem(MessageType target, MessageType source) {
    for (Type field : source.getFields()) {
      if (!target.containsField(field.getName())) {
        return Optional.of("column '" + field.getName() + "' is not in the target schema");
      }
      Type targetField = target.getType(field.getName());
      if (!targetField.equals(field)) {
        return Optional.of("column '" + field.getName() + "' is " + field + " but " + targetField + " in the target");
      }
    }
    for (Type field : target.getFields()) {
      if (!source.containsField(field.getName()) && field.getRepetition() != Type.Repetition.OPTIONAL) {
        return Optional.of("column '" + field.getName() + "' is missing and not optional, so it cannot be null");
      }
    }
    return Optional.empty();
  }
}
