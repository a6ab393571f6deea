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
#      the memory budget, or not) and on Spark, with the daemon's peak RSS and its largest heap after a GC;
#   4. beside (not in the default PARTS): `hudi-tsd server` at DAEMON_HEAP on two tables: a copy of the large table,
#      whose rewrite clustering goes to Spark (tsd.engine.clustering: spark, planned on request), and a small MOR
#      table that bench/LoopWriter.java (a JVM of its own) upserts into every BESIDE_WRITE_MS, compacted in process
#      every 3 delta commits. Measures for BESIDE_BASELINE s without the Spark run, then while it runs: the small
#      table's compaction durations (Finished lines) and poll-to-poll gaps (its lastPoll over REST, sampled each
#      second), tsd_poll_duration_seconds of both tables, the daemon's heap (-Xlog:gc) and RSS; one table of both
#      columns side by side, with their ratio.
# Spark: a standalone Master + one Worker (SPARK_CORES cores, SPARK_WORKER_MEMORY) on loopback, from the SPARK_HOME
# that spark-runner builds; client mode, executors of SPARK_EXECUTOR_MEMORY. Not part of `mvn verify`.
# Results go to stdout as a markdown table and to BENCH_DIR/results.md; logs to BENCH_DIR/logs.
#
# Environment (defaults in brackets):
#   BENCH_DIR            working directory (tables are kept; runs/ and logs/ are wiped)   [/tmp/hudi-tsd-bench-spark]
#   PARTS                which parts, in this order (beside is extra)                     [fixed crossover large]
#   REPEAT               submissions of the tiny plan                                     [3]
#   TINY_COMMITS, TINY_ROWS                                                               [4, 500]
#   CROSSOVER_COMMITS    table sizes for the crossover, in commits of ROWS_PER_COMMIT rows [10 40]
#   ROWS_PER_COMMIT                                                                       [15000]
#   LARGE_TABLE          the large table                [/tmp/hudi-tsd-bench-bcopy/source-200x15000]
#   JAVA_HEAP            -Xmx of the in-process crossover runs                            [2g]
#   DAEMON_HEAP          -Xmx of the daemon for the large table                           [512m]
#   SPARK_CORES, SPARK_WORKER_MEMORY, SPARK_EXECUTOR_MEMORY                               [2, 2g, 1g]
#   MASTER_PORT          the master's port; its UI and the worker's ports are the next three  [17177]
#   BESIDE_PORT          the beside daemon's REST port; the admin port is the next one    [18490]
#   BESIDE_POLL, BESIDE_WRITE_MS   its polling.interval, and the writer's pause between commits   [2s, 2000]
#   BESIDE_BASELINE      seconds measured without the Spark run                           [120]
#   BESIDE_TIMEOUT       seconds the Spark run may take                                   [900]
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
beside_port=${BESIDE_PORT:-18490}
beside_poll=${BESIDE_POLL:-2s}
beside_write_ms=${BESIDE_WRITE_MS:-2000}
beside_baseline=${BESIDE_BASELINE:-120}
beside_timeout=${BESIDE_TIMEOUT:-900}
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

# --- beside: the large table's clustering on Spark in a server, beside a small MOR table that keeps being written ---
beside_results=()
# Cumulative tsd_poll_duration_seconds buckets from /prometheus: "le count" lines, then "sum S" and "count N".
scrape_polls() {
  curl -sf "http://127.0.0.1:$((beside_port + 1))/prometheus" \
    | awk '/^tsd_poll_duration_seconds_bucket/ { match($0, /le="[^"]*"/); print substr($0, RSTART + 4, RLENGTH - 5), $NF }
           /^tsd_poll_duration_seconds_sum/ { print "sum", $NF } /^tsd_poll_duration_seconds_count/ { print "count", $NF }'
}
# The polls between two scrapes: count, mean ms, and the upper bounds (s) of the buckets holding the median and the
# slowest poll.
poll_figures() {
  awk 'NR == FNR { a[$1] = $2; next } { d[$1] = $2 - a[$1]; if ($1 != "sum" && $1 != "count") le[++n] = $1 }
       END { c = d["count"]; if (c == 0) { print "0 NA NA NA"; exit }
             p50 = "NA"; mx = "NA"
             for (i = 1; i <= n; i++) { if (p50 == "NA" && d[le[i]] >= c / 2) p50 = le[i]; if (mx == "NA" && d[le[i]] >= c) mx = le[i] }
             printf "%d %.0f %s %s\n", c, 1000 * d["sum"] / c, p50, mx }' "$1" "$2"
}
# p50 and max of the numbers on stdin ("NA NA" when none), and how many.
p50_max() { sort -n | awk '{ v[++n] = $1 } END { if (n == 0) print "NA NA 0"; else print v[int((n + 1) / 2)], v[n], n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b ~ /^[0-9.]+$/) printf "%.2f", b / a; else print "-" }'; }

beside() {
  local port=$beside_port work="$dir/runs/beside" out="$dir/logs/beside"
  rm -rf "$work"; mkdir -p "$work"
  local large="$work/large" small="$work/small"
  log "beside: copying the large table"
  cp -a "$large_table" "$large"; rm -f "$large/.built"; sync
  cat >"$work/tsd.yml" <<EOF
server:
  applicationConnectors:
    - type: http
      bindHost: 127.0.0.1
      port: $port
  adminConnectors:
    - type: http
      bindHost: 127.0.0.1
      port: $((port + 1))
  requestLog:
    appenders: []
logging:
  level: WARN
  loggers:
    io.huditsd: INFO
    org.apache.hudi.client.heartbeat.HoodieHeartbeatClient: ERROR
polling:
  interval: $beside_poll
workers:
  count: 2
  retryBackoff: 5s
  heartbeatInterval: 5s
tables:
  - path: $large
    id: large
    services: [clustering]
    hoodie:
      tsd.engine.clustering: spark
      # Planned on request (POST /schedule) once the baseline is measured, not by the commit trigger.
      hoodie.clustering.inline.max.commits: "1000000"
      hoodie.clustering.plan.strategy.hot.commits: "0"
      hoodie.clustering.plan.strategy.hot.minutes: "0"
      hoodie.parquet.compression.codec: gzip
  - path: $small
    id: small
    services: [compaction, clean, archive]
    hoodie:
      tsd.engine: java
      hoodie.compact.inline.max.delta.commits: "3"
      hoodie.clean.commits.retained: "3"
      hoodie.keep.min.commits: "5"
      hoodie.keep.max.commits: "8"
$(cat "$dir/spark.yml")
EOF
  log "beside: starting the writer of the small MOR table (a delta commit every ${beside_write_ms} ms)"
  java -Xmx512m "${quiet[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml" \
    -cp "$jar:$home/api/target/lib/*" "$home/bench/LoopWriter.java" "$small" "$beside_write_ms" \
    >"$out.writer" 2>"$out.writer.err" &
  local writer=$!; pids+=("$writer")
  for _ in $(seq 240); do grep -q '^committed' "$out.writer" 2>/dev/null && break; sleep 0.5; done
  grep -q '^committed' "$out.writer" || { log "the writer did not commit; see $out.writer.err"; exit 1; }

  log "beside: starting the daemon server (-Xmx$daemon_heap) on both tables"
  java -Xmx"$daemon_heap" "${quiet[@]}" -Xlog:gc:file="$out.gc" -jar "$jar" server "$work/tsd.yml" >"$out.out" 2>&1 &
  local daemon=$!; pids+=("$daemon")
  for _ in $(seq 240); do curl -sf "http://127.0.0.1:$port/api/v1/tables/small" >/dev/null 2>&1 && break; sleep 0.5; done
  # Samples every second: time, the small table's lastPoll, the daemon's RSS (KiB), the 1-minute load.
  ( while kill -0 "$daemon" 2>/dev/null; do
      printf '%s %s %s %s\n' "$(now_ms)" \
        "$(curl -sf "http://127.0.0.1:$port/api/v1/tables/small" | grep -o '"lastPoll":"[^"]*"' | cut -d'"' -f4 | grep . || echo -)" \
        "$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status" 2>/dev/null | grep . || echo 0)" "$(load)"
      sleep 1
    done ) >"$out.samples" 2>/dev/null &
  pids+=($!)
  log "beside: warming up until the small table's first compaction finished"
  for _ in $(seq 180); do
    grep -q "Finished table=small service=compaction.*result=succeeded" "$out.out" && break
    kill -0 "$daemon" 2>/dev/null || { log "the daemon exited; see $out.out"; exit 1; }
    sleep 1
  done

  # A phase's marks: epoch ms, lines of the daemon log and of its GC log, the poll histogram.
  mark() { echo "$(now_ms) $(wc -l <"$out.out") $(wc -l <"$out.gc")" >"$out.mark-$1"; scrape_polls >"$out.polls-$1"; }
  mark a0
  log "beside: (a) baseline for $beside_baseline s, no Spark run"
  sleep "$beside_baseline"
  mark a1
  log "beside: (b) scheduling the large table's rewrite clustering (engine spark)"
  curl -sf -XPOST -H 'Content-Type: application/json' -d '{"service": "clustering"}' \
    "http://127.0.0.1:$port/api/v1/tables/large/schedule" >"$out.schedule" || { log "schedule refused: $(cat "$out.schedule")"; exit 1; }
  mark b0
  local deadline=$(( $(date +%s) + beside_timeout ))
  until grep -q "Finished table=large service=clustering" "$out.out"; do
    kill -0 "$daemon" 2>/dev/null || { log "the daemon exited; see $out.out"; exit 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { log "the Spark run did not finish in $beside_timeout s"; break; }
    sleep 1
  done
  mark b1
  local finished; finished=$(grep -ho "Finished table=large service=clustering.*" "$out.out" | tail -1 | cut -c1-240 | tr '|' '/' || true)
  log "beside: ${finished:-no Finished line}"
  kill "$writer" 2>/dev/null || true; wait "$writer" 2>/dev/null || true
  # Stopped while idle: a compaction cut by the shutdown retries its commit's lock for a minute.
  curl -sf -XPOST "http://127.0.0.1:$port/api/v1/tables/small/pause" >/dev/null || true
  for _ in $(seq 60); do
    curl -sf "http://127.0.0.1:$port/api/v1/runs" | grep -q '"status":"running"' || break
    sleep 1
  done
  kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true

  # Per phase: the figures of one column.
  phase_figures() { # from to -> "key value" lines
    local t0 l0 g0 t1 l1 g1
    read -r t0 l0 g0 <"$out.mark-$1"; read -r t1 l1 g1 <"$out.mark-$2"
    echo "seconds $(( (t1 - t0) / 1000 ))"
    read -r n mean p50 mx <<<"$(poll_figures "$out.polls-$1" "$out.polls-$2")"
    echo "polls $n"; echo "poll_mean_ms $mean"; echo "poll_p50_le_s $p50"; echo "poll_max_le_s $mx"
    # The small table's polls as seen from outside: the gaps between successive lastPoll values (interval + poll).
    read -r gp50 gmax gn <<<"$(awk -v t0="$t0" -v t1="$t1" '$1 >= t0 && $1 <= t1 && $2 != "-" { print $2 }' "$out.samples" \
      | uniq | awk '{ split(substr($0, 12), t, ":"); ms = (t[1] * 3600 + t[2] * 60 + t[3]) * 1000
                      if (NR > 1) printf "%.0f\n", ms - prev; prev = ms }' | p50_max)"
    echo "gap_p50_ms $gp50"; echo "gap_max_ms $gmax"; echo "gaps $gn"
    read -r cp50 cmax cn <<<"$(sed -n "$((l0 + 1)),${l1}p" "$out.out" \
      | sed -n 's/.*Finished table=small service=compaction.*result=succeeded.* durationMs=\([0-9]*\).*/\1/p' | p50_max)"
    echo "compaction_p50_ms $cp50"; echo "compaction_max_ms $cmax"; echo "compactions $cn"
    # -Xlog:gc lines "... 123M->45M(512M) ...": the largest heap before and after a collection.
    sed -n "$((g0 + 1)),${g1}p" "$out.gc" >"$out.gc-$1"
    echo "heap_before_gc_mib $(awk 'function mib(v) { u = substr(v, length(v)); n = substr(v, 1, length(v) - 1) + 0
         return u == "G" ? n * 1024 : u == "K" ? n / 1024 : n }
       match($0, /[0-9]+[KMG]->[0-9]+[KMG]\(/) { s = substr($0, RSTART, RLENGTH - 1); split(s, p, "->")
         b = mib(p[1]); if (b > m) m = b } END { printf "%d", m }' "$out.gc-$1")"
    # After evacuating pauses only: G1's Remark and Cleanup pauses report the heap as it is mid-cycle, young
    # objects included.
    grep -E 'Pause (Young|Full)' "$out.gc-$1" >"$out.gc-$1-pauses" || true
    echo "heap_after_gc_mib $(heap_after_gc "$out.gc-$1-pauses")"
    echo "heap_after_gc_p50_mib $(grep -o '[0-9]*[KMG]->[0-9]*M(' "$out.gc-$1-pauses" | sed 's/.*->\([0-9]*\)M(/\1/' | p50_max | cut -d' ' -f1)"
    echo "gcs $(grep -c -- '->' "$out.gc-$1" || true)"
    awk -v t0="$t0" -v t1="$t1" '$1 >= t0 && $1 <= t1 { if ($3 > m) m = $3; s += $4; n++ }
      END { printf "rss_peak_mib %d\nload_mean %.1f\n", m / 1024, n ? s / n : 0 }' "$out.samples"
  }
  phase_figures a0 a1 >"$out.a"; phase_figures b0 b1 >"$out.b"
  local key label va vb
  beside_results+=("| the large table's clustering (spark) | - | ${finished:-not finished} |  |")
  while read -r key label; do
    va=$(awk -v k="$key" '$1 == k { print $2 }' "$out.a"); vb=$(awk -v k="$key" '$1 == k { print $2 }' "$out.b")
    beside_results+=("| $label | $va | $vb | $(ratio "$va" "$vb") |")
  done <<'KEYS'
seconds phase length, s
compactions small table: compactions finished
compaction_p50_ms small table: compaction run p50, ms
compaction_max_ms small table: compaction run max, ms
gaps small table: polls seen (lastPoll changes)
gap_p50_ms small table: poll-to-poll gap p50, ms (interval + poll)
gap_max_ms small table: poll-to-poll gap max, ms
polls both tables: polls (tsd_poll_duration_seconds)
poll_mean_ms both tables: poll mean, ms
poll_p50_le_s both tables: poll p50 bucket, <= s
poll_max_le_s both tables: slowest poll bucket, <= s
gcs daemon: collections
heap_before_gc_mib daemon: heap before a collection, max MiB
heap_after_gc_p50_mib daemon: heap after a young/mixed/full pause, p50 MiB
heap_after_gc_mib daemon: heap after a young/mixed/full pause, max MiB
rss_peak_mib daemon: RSS peak, MiB
load_mean 1-minute load, mean
KEYS
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
    beside)
      [ -f "$large_table/.built" ] || build_table "$large_table" 200 15000
      beside
      ;;
    *) log "unknown part $part"; exit 1 ;;
  esac
done

{
  if [ ${#results[@]} -gt 0 ]; then
  echo "| run | engine | MB | daemon -Xmx | result | run s (submit..commit) | once s | daemon peak RSS MiB | daemon heap after GC, max MiB | load | why |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
  fi
  if [ ${#beside_results[@]} -gt 0 ]; then
    echo
    echo "beside: the small table and the daemon (-Xmx$daemon_heap), (a) without and (b) during the large table's clustering on Spark"
    echo
    echo "| figure | (a) without | (b) during the Spark run | (b) / (a) |"
    echo "|---|---|---|---|"
    printf '%s\n' "${beside_results[@]}"
  fi
} | tee "$dir/results.md"
