#!/usr/bin/env bash
# Poll-cost benchmark: 1,000 small real Hudi tables, idle, polled every 30 s by one daemon.
#
# Reports the daemon's CPU share (of one core) and heap after warm-up, and the delay from a new commit on one table
# to the daemon scheduling the compaction that commit made due. Takes about six minutes; not part of `mvn verify`.
#
#   bench/poll-cost.sh                      # defaults below
#   TABLES=200 MEASURE_SECONDS=60 bench/poll-cost.sh   # a quicker, smaller run
#
# Environment (defaults in brackets):
#   BENCH_DIR        working directory, wiped first            [/tmp/hudi-tsd-bench]
#   TABLES           registered tables, the target included    [1000]
#   POLL_INTERVAL    polling.interval of the daemon             [30s]
#   MEASURE_SECONDS  idle measurement window after warm-up      [180]
#   SAMPLES          commit-to-schedule samples                 [3]
#   HEAP             the daemon's -Xmx                          [1g]
#   BENCH_PORT       REST port; the admin port is the next one  [18480]
#
# What it does: writes one template MOR table with the project's SampleTable writer (an insert and an upsert),
# compacts it once with `hudi-tsd once` so that nothing is due on it, copies it TABLES-1 times under a discovery
# root and once more as the target table (listed explicitly, with a compaction trigger of one delta commit), starts
# `hudi-tsd server` on them, waits until every table has been polled and one more interval has passed, then samples
# /proc/<pid>/stat and jstat for MEASURE_SECONDS. Last it commits to the target table SAMPLES times and times each
# commit until the daemon logs "Scheduled table=bench-target service=compaction".
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench}
tables=${TABLES:-1000}
interval=${POLL_INTERVAL:-30s}
measure=${MEASURE_SECONDS:-180}
samples=${SAMPLES:-3}
heap=${HEAP:-1g}
port=${BENCH_PORT:-18480}
jar="$home/api/target/hudi-tsd.jar"
java_flags=(-Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
writer=(java "${java_flags[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml"
  -cp "$jar:$home/api/target/lib/*" "$home/bench/BenchWriter.java")
ticks=$(getconf CLK_TCK)
daemon=""

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
heap_used_kib() { jstat -gc "$1" | awk 'NR == 2 { printf "%d\n", $3 + $4 + $6 + $8 }'; }
cleanup() { if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then kill "$daemon"; wait "$daemon" || true; fi; }
trap cleanup EXIT

if [ ! -f "$jar" ]; then
  log "building hudi-tsd (mvn -DskipTests install)"
  (cd "$home" && mvn -B -q -DskipTests install)
fi

rm -rf "$dir"
mkdir -p "$dir/tables" "$dir/target"

log "writing the template table"
"${writer[@]}" create "$dir/template" 2>"$dir/writer.log"
java "${java_flags[@]}" -jar "$jar" once --table "$dir/template" \
  --hoodie-conf hoodie.compact.inline.max.delta.commits=1 >"$dir/once.log" 2>&1
log "template: $(du -sh "$dir/template" | cut -f1), $(find "$dir/template" -type f | wc -l) files; copying it $tables times"
for i in $(seq 1 $((tables - 1))); do
  cp -a "$dir/template" "$dir/tables/$(printf 't%04d' "$i")"
done
cp -a "$dir/template" "$dir/target/bench-target"

cat >"$dir/bench.yml" <<EOF
server:
  applicationConnectors:
    - type: http
      port: $port
  adminConnectors:
    - type: http
      port: $((port + 1))
  requestLog:
    appenders: []
logging:
  level: WARN
  loggers:
    io.huditsd: INFO
    org.apache.hudi.client.heartbeat.HoodieHeartbeatClient: ERROR
polling:
  interval: $interval
workers:
  count: 2
discovery:
  roots: [$dir/tables]
  maxDepth: 1
tables:
  - path: $dir/target/bench-target
    id: bench-target
    hoodie:
      hoodie.compact.inline.max.delta.commits: "1"
EOF

log "starting the daemon (-Xmx$heap)"
start_ms=$(now_ms)
java -Xmx"$heap" "${java_flags[@]}" -jar "$jar" server "$dir/bench.yml" >"$dir/daemon.log" 2>&1 &
daemon=$!

# Every table registered, and none without a first poll.
all_polled() {
  local body
  body=$(curl -sf "http://localhost:$port/api/v1/tables") || return 1
  [ "$(grep -o '"id":"' <<<"$body" | wc -l)" -ge "$tables" ] && ! grep -q '"lastPoll":null' <<<"$body"
}
until all_polled; do
  kill -0 "$daemon" 2>/dev/null || { log "daemon exited; see $dir/daemon.log"; exit 1; }
  sleep 5
done
warm_ms=$(( $(now_ms) - start_ms ))
log "all $tables tables polled once after $((warm_ms / 1000)) s; waiting one more interval"
interval_seconds=$(curl -sf "http://localhost:$port/api/v1/tables/bench-target" | sed 's/.*"pollIntervalSeconds":\([0-9]*\).*/\1/')
sleep "$interval_seconds"

log "measuring for $measure s"
t0=$(now_ms); c0=$(cpu_ticks "$daemon")
max_heap=0; sum_heap=0; n_heap=0
end=$(( $(date +%s) + measure ))
while [ "$(date +%s)" -lt "$end" ]; do
  used=$(heap_used_kib "$daemon")
  sum_heap=$((sum_heap + used)); n_heap=$((n_heap + 1))
  [ "$used" -gt "$max_heap" ] && max_heap=$used
  sleep 5
done
t1=$(now_ms); c1=$(cpu_ticks "$daemon")
cpu_percent=$(awk -v c="$((c1 - c0))" -v hz="$ticks" -v ms="$((t1 - t0))" 'BEGIN { printf "%.2f", 100 * (c / hz) / (ms / 1000) }')
rss_kib=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")
threads=$(awk '/^Threads/ { print $2 }' "/proc/$daemon/status")
jcmd "$daemon" GC.run >/dev/null
live_kib=$(jcmd "$daemon" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { sub(/K,?/, "", $(i+1)); print $(i+1); exit } }')
failures=$(curl -sf "http://localhost:$port/api/v1/tables" | grep -o '"consecutiveFailures":[1-9]' | wc -l || true)

log "timing commit-to-schedule on bench-target ($samples samples)"
scheduled_count() { grep -c "Scheduled table=bench-target service=compaction" "$dir/daemon.log" || true; }
target_busy() {
  curl -sf "http://localhost:$port/api/v1/runs" \
    | grep -Eo '"table":"bench-target"[^}]*"status":"(queued|running|retry_wait)"' | grep -q . 
}
delays=()
for s in $(seq 1 "$samples"); do
  while target_busy; do sleep 1; done
  before=$(scheduled_count)
  committed=$("${writer[@]}" upsert "$dir/target/bench-target" 2>>"$dir/writer.log" | awk '/^committed/ { print $4 }')
  until [ "$(scheduled_count)" -gt "$before" ]; do
    kill -0 "$daemon" 2>/dev/null || { log "daemon exited; see $dir/daemon.log"; exit 1; }
    sleep 0.1
  done
  delay=$(( $(now_ms) - committed ))
  delays+=("$delay")
  log "sample $s: scheduled $((delay / 1000)).$(printf '%03d' $((delay % 1000))) s after the commit completed"
done
max_delay=$(printf '%s\n' "${delays[@]}" | sort -n | tail -1)
# Let the last compaction finish: stopping the daemon under it would only exercise the retry on next start.
for _ in $(seq 1 120); do target_busy || break; sleep 1; done

cat <<EOF

poll-cost benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1)
  tables registered and polled       $tables (polling.interval $interval, workers 2, -Xmx$heap)
  warm-up (every table polled once)  $((warm_ms / 1000)) s
  idle CPU over $((  (t1 - t0) / 1000 )) s              $cpu_percent % of one core
  heap used while idle (jstat)       avg $((sum_heap / n_heap / 1024)) MiB, max $((max_heap / 1024)) MiB
  live heap after a full GC          $((live_kib / 1024)) MiB
  RSS / threads                      $((rss_kib / 1024)) MiB / $threads
  tables failing their polls         $failures
  commit-to-schedule (ms)            ${delays[*]} (max $max_delay)
EOF
