package io.huditsd.api;

import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** The most recent finished runs, newest first, bounded in size. */
public final class RunHistory implements RunListener {
  private final int capacity;
  private final Deque<RunRecord> finished = new ArrayDeque<>();

  public RunHistory(int capacity) {
    this.capacity = capacity;
  }

  @Override
  public synchronized void onChange(RunRecord record) {
    if (record.status().isFinal()) {
      finished.addFirst(record);
      while (finished.size() > capacity) {
        finished.removeLast();
      }
    }
  }

  public synchronized List<RunRecord> recent() {
    return new ArrayList<>(finished);
  }
}
