#!/usr/bin/env bash
# Spark engine benchmark (issue 14): what a plan costs on Spark against in process, with `hudi-tsd once`.
#
#   1. fixed cost: the rewrite clustering of a tiny table (TINY_COMMITS x TINY_ROWS rows) submitted to Spark,
#      REPEAT times: the run's durationMs (Started .. Finished, i.e. submit to commit) and the whole `once`;
#      the same plan in process for comparison;
#   2. crossover: the rewrite clustering of tables of CROSSOVER_COMMITS x ROWS_PER_COMMIT rows, in process (at
#      JAVA_HEAP) and on Spark: the plan size above which Spark is faster here;
#   3. the large table: the binary-copy benchmark's table (200 gzip files, 3,000,000 rows, ~248 MB; built by
#      bench/binary-copy.sh, or here) clustered by rewrite with the daemon at DAEMON_HEAP: in process (refused by
#      the memory budget, or not) and on Spark, with the daemon's peak RSS and its largest heap after a GC.
# Spark: a standalone Master + one Worker (SPARK_CORES cores, SPARK_WORKER_MEMORY) on loopback, from the SPARK_HOME
# that spark-runner builds; client mode, executors of SPARK_EXECUTOR_MEMORY. Not part of `mvn verify`.
# Results go to stdout as a markdown table and to BENCH_DIR/results.md; logs to BENCH_DIR/logs.
#
# Environment (defaults in brackets):
#   BENCH_DIR            working directory (tables are kept; runs/ and logs/ are wiped)   [/tmp/hudi-tsd-bench-spark]
#   PARTS                which parts, in this order                                       [fixed crossover large]
#   REPEAT               submissions of the tiny plan                                     [3]
#   TINY_COMMITS, TINY_ROWS                                                               [4, 500]
#   CROSSOVER_COMMITS    table sizes for the crossover, in commits of ROWS_PER_COMMIT rows [10 40]
#   ROWS_PER_COMMIT                                                                       [15000]
#   LARGE_TABLE          the large table                [/tmp/hudi-tsd-bench-bcopy/source-200x15000]
#   JAVA_HEAP            -Xmx of the in-process crossover runs                            [2g]
#   DAEMON_HEAP          -Xmx of the daemon for the large table                           [512m]
#   SPARK_CORES, SPARK_WORKER_MEMORY, SPARK_EXECUTOR_MEMORY                               [2, 2g, 1g]
#   MASTER_PORT          the master's port; its UI and the worker's ports are the next three  [17177]
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench-spark}
parts=${PARTS:-fixed crossover large}
repeat=${REPEAT:-3}
tiny_commits=${TINY_COMMITS:-4}
tiny_rows=${TINY_ROWS:-500}
crossover_commits=${CROSSOVER_COMMITS:-10 40}
rows_per_commit=${ROWS_PER_COMMIT:-15000}
large_table=${LARGE_TABLE:-/tmp/hudi-tsd-bench-bcopy/source-200x15000}
java_heap=${JAVA_HEAP:-2g}
daemon_heap=${DAEMON_HEAP:-512m}
spark_cores=${SPARK_CORES:-2}
worker_memory=${SPARK_WORKER_MEMORY:-2g}
executor_memory=${SPARK_EXECUTOR_MEMORY:-1g}
master_port=${MASTER_PORT:-17177}
jar="$home/api/target/hudi-tsd.jar"
spark_home="$home/spark-runner/target/spark-home"
quiet=(-Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
spark_flags=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }
load() { cut -d' ' -f1 /proc/loadavg; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1000000 }'; }
seconds() { if [[ "$1" =~ ^[0-9]+$ ]]; then awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; else echo "${1:-NA}"; fi; }
table_bytes() { find "$1" -path "$1/.hoodie" -prune -o -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
# The largest heap left after a collection (MiB), from -Xlog:gc.
heap_after_gc() {
  awk 'function mib(v) { u = substr(v, length(v)); n = substr(v, 1, length(v) - 1) + 0
         return u == "G" ? n * 1024 : u == "K" ? n / 1024 : n }
       match($0, /[0-9]+[KMG]->[0-9]+[KMG]\(/) { s = substr($0, RSTART, RLENGTH - 1); split(s, p, "->")
         a = mib(p[2]); if (a > m) m = a }
       END { printf "%d", m }' "$1" 2>/dev/null || echo NA
}

if [ ! -f "$jar" ] || [ ! -x "$spark_home/bin/spark-submit" ] || [ ! -f "$home/api/target/hudi-tsd-spark-runner.jar" ]; then
  log "building hudi-tsd, the Spark runner and its SPARK_HOME (mvn -DskipTests package)"
  (cd "$home" && mvn -B -q -DskipTests package -pl api,spark-runner -am)
fi

mkdir -p "$dir"
rm -rf "$dir/runs" "$dir/logs"
mkdir -p "$dir/runs" "$dir/logs" "$dir/spark-logs"

build_table() { # path commits rows
  if [ ! -f "$1/.built" ]; then
    log "building table $1 ($2 commits of $3 rows)"
    rm -rf "$1"
    java -Xmx2g "${quiet[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml" \
      -cp "$jar:$home/api/target/lib/*" "$home/bench/BinaryCopyTable.java" "$1" "$2" "$3" 2>"$dir/logs/build-$(basename "$1").log"
    touch "$1/.built"
  fi
}

# --- the standalone cluster ----------------------------------------------------------------------------------------
pids=()
stop_cluster() { for pid in "${pids[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done; }
trap stop_cluster EXIT
start_jvm() { # log main args...
  local out=$1; shift
  env SPARK_HOME="$spark_home" SPARK_SCALA_VERSION=2.12 SPARK_LOCAL_IP=127.0.0.1 java -Xmx256m "${spark_flags[@]}" \
    -cp "$spark_home/conf/:$spark_home/jars/*" "$@" >"$out" 2>&1 &
  pids+=($!)
}
log "starting a Spark master and one worker ($spark_cores cores, $worker_memory) on 127.0.0.1:$master_port"
start_jvm "$dir/logs/master.log" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$master_port" \
  --webui-port $((master_port + 1))
start_jvm "$dir/logs/worker.log" org.apache.spark.deploy.worker.Worker "spark://127.0.0.1:$master_port" \
  --host 127.0.0.1 --port $((master_port + 2)) --webui-port $((master_port + 3)) --cores "$spark_cores" \
  --memory "$worker_memory" --work-dir "$dir/spark-work"
for _ in $(seq 120); do
  grep -q "Successfully registered with master" "$dir/logs/worker.log" 2>/dev/null && break
  sleep 0.5
done
grep -q "Successfully registered with master" "$dir/logs/worker.log" || { log "the worker did not register; see $dir/logs"; exit 1; }

cat >"$dir/spark.yml" <<EOF
spark:
  sparkHome: $spark_home
  master: spark://127.0.0.1:$master_port
  deployMode: client
  maxApplications: 1
  timeout: 30m
  logDir: $dir/spark-logs
  conf:
    spark.driver.host: 127.0.0.1
    spark.driver.bindAddress: 127.0.0.1
    spark.ui.enabled: "false"
    spark.driver.memory: 1g
    spark.executor.memory: $executor_memory
    # Hudi loads the lock provider by name from the bundle's class loader, which does not see --jars.
    spark.driver.extraClassPath: $home/api/target/hudi-tsd-lock-providers.jar
EOF

# --- one clustering pass -------------------------------------------------------------------------------------------
results=()
# name table engine heap: a copy of the table clustered by rewrite with `once`; one result row.
run_once() {
  local name=$1 table=$2 engine=$3 heap=$4 copy="$dir/runs/$1" out="$dir/logs/$1"
  rm -rf "$copy"; cp -a "$table" "$copy"; rm -f "$copy/.built"; sync
  local bytes; bytes=$(table_bytes "$copy")
  local before_load; before_load=$(load)
  local start; start=$(now_ms)
  java -Xmx"$heap" "${quiet[@]}" -Xlog:gc:file="$out.gc" -cp "$jar" io.huditsd.api.TsdApplication once \
    --table "$copy" --services clustering --engine "$engine" --spark-config "$dir/spark.yml" \
    --hoodie-conf hoodie.clustering.plan.strategy.hot.commits=0 --hoodie-conf hoodie.clustering.plan.strategy.hot.minutes=0 \
    --hoodie-conf hoodie.parquet.compression.codec=gzip >"$out.out" 2>&1 &
  local pid=$! hwm=0 v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
    sleep 0.2
  done
  local code=0; wait "$pid" || code=$?
  local wall=$(( $(now_ms) - start ))
  # once's summary line: table=... service=clustering instant=... engine=... status=... durationMs=... [error=...]
  local summary; summary=$(grep -h "^table=.* service=clustering.* status=" "$out.out" | tail -1 || true)
  local result; result=$(sed -n 's/.* status=\([a-z]*\).*/\1/p' <<<"$summary")
  local duration; duration=$(sed -n 's/.* durationMs=\([0-9]*\).*/\1/p' <<<"$summary")
  local why=""; [ "$result" != succeeded ] && why=$(sed -n 's/.* error=\(.\{0,200\}\).*/\1/p' <<<"$summary" | tr "|" "/" || true)
  results+=("| $name | $engine | $(mb "$bytes") | $heap | ${result:-none} (exit $code) | $(seconds "${duration:-NA}") | $(seconds "$wall") | $((hwm / 1024)) | $(heap_after_gc "$out.gc") | $before_load | ${why} |")
  log "$name: result=${result:-none} exit=$code run=$(seconds "${duration:-NA}")s once=$(seconds "$wall")s rss=$((hwm / 1024))MiB"
}

for part in $parts; do
  case $part in
    fixed)
      tiny="$dir/tables/tiny-${tiny_commits}x${tiny_rows}"
      build_table "$tiny" "$tiny_commits" "$tiny_rows"
      run_once tiny-java "$tiny" java "$java_heap"
      for i in $(seq "$repeat"); do run_once "tiny-spark-$i" "$tiny" spark "$java_heap"; done
      ;;
    crossover)
      for commits in $crossover_commits; do
        table="$dir/tables/rewrite-${commits}x${rows_per_commit}"
        build_table "$table" "$commits" "$rows_per_commit"
        run_once "rewrite-${commits}-java" "$table" java "$java_heap"
        run_once "rewrite-${commits}-spark" "$table" spark "$java_heap"
      done
      ;;
    large)
      [ -f "$large_table/.built" ] || build_table "$large_table" 200 15000
      run_once large-java "$large_table" java "$daemon_heap"
      run_once large-spark "$large_table" spark "$daemon_heap"
      ;;
    *) log "unknown part $part"; exit 1 ;;
  esac
done

{
  echo "| run | engine | MB | daemon -Xmx | result | run s (submit..commit) | once s | daemon peak RSS MiB | daemon heap after GC, max MiB | load | why |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
} | tee "$dir/results.md"
