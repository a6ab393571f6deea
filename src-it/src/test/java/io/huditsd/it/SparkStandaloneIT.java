package io.huditsd.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.huditsd.it.support.SparkStandalone;
import io.huditsd.it.support.Tsd;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The loopback Spark standalone cluster the Spark ITs run on: one worker with one core registers, and closing ends
 * the master, the worker and whatever they started.
 */
class SparkStandaloneIT {
  @Test
  void startsMasterAndOneWorkerAndStopsTheirProcesses() throws Exception {
    List<ProcessHandle> started;
    try (SparkStandalone cluster = SparkStandalone.start(Tsd.workDirectory("spark-standalone"))) {
      JsonNode state = cluster.masterState();
      assertThat(state.path("aliveworkers").asInt()).isEqualTo(1);
      assertThat(state.path("cores").asInt()).isEqualTo(1);
      assertThat(state.path("url").asText()).isEqualTo(cluster.masterUrl());
      started = ProcessHandle.current().descendants().toList();
      assertThat(started).hasSizeGreaterThanOrEqualTo(2);
    }
    assertThat(started).noneMatch(ProcessHandle::isAlive);
  }
}
