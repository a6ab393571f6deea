package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.huditsd.scheduler.view.FileSliceRow;

/** One file slice, named as the columns of Hudi's {@code hudi_filesystem_view}. */
public record FileSliceView(@JsonProperty("File_ID") String fileId,
                            @JsonProperty("Partition_Path") String partitionPath,
                            @JsonProperty("Base_Instant_Time") String baseInstantTime,
                            @JsonProperty("Base_File_Path") String baseFilePath,
                            @JsonProperty("Base_File_Size") long baseFileSize,
                            @JsonProperty("Log_File_Count") int logFileCount,
                            @JsonProperty("Log_File_Size") long logFileSize,
                            @JsonProperty("Log_File_Scheduled") long logFileScheduled,
                            @JsonProperty("Log_File_Unscheduled") long logFileUnscheduled) {
  public static FileSliceView of(FileSliceRow row) {
    return new FileSliceView(row.fileId(), row.partitionPath(), row.baseInstantTime(), row.baseFilePath(),
        row.baseFileSize(), row.logFileCount(), row.logFileSize(), row.logFileScheduled(), row.logFileUnscheduled());
  }
}
