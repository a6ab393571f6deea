package io.huditsd.scheduler.view;

/**
 * One file slice, with the columns of Hudi's {@code hudi_filesystem_view} Spark SQL function.
 *
 * @param fileId the file group's id
 * @param partitionPath the partition, relative to the base path ("" when unpartitioned)
 * @param baseInstantTime the slice's base instant
 * @param baseFilePath full path of the base file, or null for a log-only slice
 * @param baseFileSize bytes of the base file, 0 without one
 * @param logFileCount number of log files in the slice
 * @param logFileSize bytes of all log files in the slice
 * @param logFileScheduled log bytes that a pending compaction plan covers
 * @param logFileUnscheduled log bytes that no pending compaction plan covers yet: the compaction backlog
 */
public record FileSliceRow(String fileId, String partitionPath, String baseInstantTime, String baseFilePath,
                           long baseFileSize, int logFileCount, long logFileSize, long logFileScheduled,
                           long logFileUnscheduled) {
}
