package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;
import java.util.Map;

/**
 * A plan of any service. Only the part for its service is present.
 *
 * @param service compaction, clustering or clean
 * @param instant the plan's requested instant; null for a preview
 * @param state requested, inflight, completed, or preview (a dry run)
 * @param compaction compaction operations
 * @param clustering clustering groups and strategy
 * @param clean files a clean deletes
 * @param index metadata partitions an indexing plan builds, and how far the build got
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PlanView(String service, String instant, String state, List<CompactionOperationView> compaction,
                       ClusteringView clustering, CleanView clean, IndexView index) {

  public PlanView(String service, String instant, String state, List<CompactionOperationView> compaction,
                  ClusteringView clustering, CleanView clean) {
    this(service, instant, state, compaction, clustering, clean, null);
  }

  /**
   * An indexing plan (Hudi's asynchronous indexer).
   *
   * @param partitions the metadata partitions (indexes) it builds
   * @param baseInstant the data-table instant the initial build covers
   * @param phase requested, building, catching-up (pending plans) or completed
   * @param commitsSinceBase completed data-table commits after the base instant, caught up before the plan
   *     completes (pending plans)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record IndexView(List<String> partitions, String baseInstant, String phase, Integer commitsSinceBase) {
  }

  /** One compaction operation: a file slice merged into a new base file. */
  public record CompactionOperationView(String partitionPath, String fileId, String baseInstantTime,
                                        String baseFile, List<String> logFiles, long logBytes,
                                        Map<String, Double> metrics) {
  }

  /**
   * A clustering plan: its strategy and groups.
   *
   * @param skippedHotFileGroups file groups its planner left out because writers wrote them recently (0 for plans
   *     of other planners, e.g. a writer's)
   */
  public record ClusteringView(String strategyClass, Map<String, String> strategyParams,
                               List<ClusteringGroupView> groups, int skippedHotFileGroups) {
  }

  /** One clustering group: input slices rewritten into numOutputFileGroups new file groups. */
  public record ClusteringGroupView(int numOutputFileGroups, List<ClusteringSliceView> slices,
                                    Map<String, Double> metrics) {
  }

  /** One input slice of a clustering group. */
  public record ClusteringSliceView(String partitionPath, String fileId, String baseFile, List<String> logFiles) {
  }

  /** A clean plan: the policy and the files it deletes, per partition. */
  public record CleanView(String policy, String earliestInstantToRetain, Map<String, List<String>> filesToDelete,
                          long fileCount) {
  }
}
