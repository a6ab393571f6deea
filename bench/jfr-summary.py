#!/usr/bin/env python3
"""Where the time goes in a Java Flight Recording (bench/compaction.sh JFR=1): `bench/jfr-summary.py FILE.jfr [TOP] [--alloc]`.

With --alloc also jdk.ObjectAllocationSample (bytes by class, allocating site, phase). Reads jdk.ExecutionSample (Java code on CPU) and jdk.NativeMethodSample with `jfr print --json` and prints
  1. the top leaf frames, by package and by class;
  2. inclusive shares of the phases of a compaction or clustering, by marker frames anywhere in a stack (a sample
     counts for the first marker from the top of this list that its stack contains);
  3. a timeline: per 2-second bucket, the samples of each phase (so waits show as gaps, phases as runs).
Relative figures only: the machine is shared, so absolute sample counts vary with load.
"""
import collections
import json
import subprocess
import sys
from datetime import datetime

LOGGING = "logging (debug events built; parquet's RecordConsumerLoggingWrapper)"
PHASES = [
    ("mdt update at commit", ("HoodieBackedTableMetadataWriter", "HoodieTableMetadataWriter.update",
                              "HoodieMetadataWriteUtils", "SparkHoodieBackedTableMetadataWriter")),
    ("commit / finalize", ("BaseHoodieTableServiceClient.completeCompaction", "commitCompaction",
                           "completeClustering", "finalizeWrite", "HoodieActiveTimeline.saveAsComplete")),
    ("compaction execute (merge handles)", ("HoodieCompactor.compact", "FileGroupReaderBasedMergeHandle",
                                            "HoodieWriteMergeHandle")),
    ("clustering execute", ("JavaExecutionStrategy", "JavaSortAndSizeExecutionStrategy", "JavaBulkInsertHelper",
                            "ClusteringExecutionStrategy", "JavaBinaryCopy")),
    ("scheduling (plan generation)", ("ScheduleCompactionActionExecutor", "ClusteringPlanActionExecutor",
                                      "CompactionPlanGenerator", "ClusteringPlanStrategy")),
    ("metadata table reads", ("HoodieBackedTableMetadata", "HoodieTableMetadataUtil", "BaseTableMetadata",
                              "HoodieMetadataLogRecordReader")),
    ("file-system view", ("FileSystemView", "FileSystemViewManager")),
    ("meta client / timeline load", ("HoodieTableMetaClient.<init>", "HoodieTableMetaClient$Builder.build",
                                     "ActiveTimeline", "reloadActiveTimeline", "TableSchemaResolver",
                                     "HoodieTableConfig.<init>")),
    ("write config / client build", ("HoodieWriteConfig$Builder.build", "HoodieJavaWriteClient.<init>",
                                     "TableWriteConfigs")),
    ("daemon probe / poll", ("io.huditsd.scheduler.", "io.huditsd.executors.InstantFileCheck")),
    ("dropwizard / startup", ("io.dropwizard.", "TsdApplication", "net.sourceforge.argparse4j")),
    ("class loading / init", ("java.lang.ClassLoader", "jdk.internal.loader", "<clinit>")),
]


def frames(event):
    stack = event.get("values", event).get("stackTrace") or {}
    out = []
    for frame in stack.get("frames", []):
        method = frame.get("method", {})
        cls = method.get("type", {}).get("name", "?")
        out.append(cls.replace("/", ".") + "." + method.get("name", "?"))
    return out


def load(path):
    text = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events",
                           "jdk.ExecutionSample", path], capture_output=True, text=True, check=True).stdout
    events = json.loads(text)["recording"]["events"]
    samples = []
    for event in events:
        values = event["values"]
        start = values.get("startTime", "")
        thread = (values.get("sampledThread") or {}).get("javaName") or "?"
        samples.append((start, thread, frames(event)))
    return samples


def is_logging(stack):
    """Time spent producing log output nobody reads: logback/slf4j near the leaf, or Parquet's debug wrapper
    doing its own work (not the real consumer it delegates to)."""
    if any(("ch.qos.logback." in frame or "org.slf4j." in frame or "MessageColumnIORecordConsumer.log" in frame)
           for frame in stack[:12]):
        return True
    for i, frame in enumerate(stack):
        if "RecordConsumerLoggingWrapper" in frame:
            callee = stack[i - 1] if i > 0 else frame
            return "RecordConsumerLoggingWrapper" in callee or "MessageColumnIORecordConsumer" not in callee
    return False


def phase_of(stack):
    if is_logging(stack):
        return LOGGING
    joined = "\n".join(stack)
    for name, markers in PHASES:
        if any(marker in joined for marker in markers):
            return name
    return "other"


def when(start):
    try:
        return datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def allocations(path, top):
    """jdk.ObjectAllocationSample: sampled bytes by allocated class and by the phase of the allocating stack."""
    text = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events",
                           "jdk.ObjectAllocationSample", path], capture_output=True, text=True, check=True).stdout
    events = json.loads(text)["recording"]["events"]
    by_class = collections.Counter()
    by_phase = collections.Counter()
    by_site = collections.Counter()
    for event in events:
        values = event["values"]
        weight = values.get("weight", 0)
        cls = (values.get("objectClass") or {}).get("name", "?").replace("/", ".")
        by_class[cls] += weight
        stack = frames(event)
        by_phase[phase_of(stack)] += weight
        site = next((f for f in stack if not f.startswith(("java.", "jdk.", "sun."))), stack[0] if stack else "?")
        by_site[site] += weight
    total = sum(by_class.values()) or 1
    print(f"\nallocation (sampled weight, {total / 2**30:.1f} GiB in all):")
    print("  by class:")
    for name, weight in by_class.most_common(top):
        print(f"    {100 * weight / total:5.1f}%  {weight / 2**20:8.0f} MiB  {name}")
    print("  by first non-JDK frame:")
    for name, weight in by_site.most_common(top):
        print(f"    {100 * weight / total:5.1f}%  {weight / 2**20:8.0f} MiB  {name}")
    print("  by phase:")
    for name, weight in by_phase.most_common():
        print(f"    {100 * weight / total:5.1f}%  {weight / 2**20:8.0f} MiB  {name}")


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 15
    samples = load(path)
    total = len(samples) or 1
    print(f"{path}: {len(samples)} execution samples")
    by_package = collections.Counter()
    by_class = collections.Counter()
    for _, _, stack in samples:
        if stack:
            cls = stack[0].rsplit(".", 1)[0]
            by_class[cls] += 1
            by_package[".".join(cls.split(".")[:3])] += 1
    print("\ntop leaf packages:")
    for name, count in by_package.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {name}")
    print("\ntop leaf classes:")
    for name, count in by_class.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {name}")
    phases = collections.Counter(phase_of(stack) for _, _, stack in samples)
    print("\nphases (inclusive, first matching marker):")
    for name, count in phases.most_common():
        print(f"  {100 * count / total:5.1f}%  {name}")
    if "--alloc" in sys.argv:
        allocations(path, top)
    times = [when(start) for start, _, _ in samples]
    if times and min(times) > 0:
        first = min(times)
        buckets = collections.defaultdict(collections.Counter)
        for (start, _, stack), t in zip(samples, times):
            buckets[int((t - first) // 2)][phase_of(stack)] += 1
        print("\ntimeline (seconds from the first sample: samples per phase, most first):")
        for bucket in range(0, max(buckets) + 1):
            row = buckets.get(bucket, {})
            described = ", ".join(f"{name.split(' (')[0]} {count}" for name, count in
                                  sorted(row.items(), key=lambda item: -item[1])[:3])
            print(f"  {bucket * 2:4d}s  {sum(row.values()):4d}  {described}")


if __name__ == "__main__":
    main()
