#!/usr/bin/env bash
# Poll-cost benchmark: 1,000 small real Hudi tables, idle, polled every 30 s by one daemon.
#
# Reports the daemon's CPU share (of one core) and heap after warm-up, and the delay from a new commit on one table
# to the daemon scheduling the compaction that commit made due. Takes about six minutes; not part of `mvn verify`.
#
#   bench/poll-cost.sh                      # defaults below
#   TABLES=200 MEASURE_SECONDS=60 bench/poll-cost.sh   # a quicker, smaller run
#   STORE=s3 bench/poll-cost.sh             # the tables on s3a://bench/ in S3Mock (about ten minutes)
#
# Environment (defaults in brackets):
#   BENCH_DIR        working directory, wiped first            [/tmp/hudi-tsd-bench]
#   TABLES           registered tables, the target included    [1000]
#   POLL_INTERVAL    polling.interval of the daemon             [30s]
#   MEASURE_SECONDS  idle measurement window after warm-up      [180]
#   SAMPLES          commit-to-schedule samples                 [3]
#   HEAP             the daemon's -Xmx                          [1g]
#   BENCH_PORT       REST port; the admin port is the next one  [18480]
#   STORE            local, or s3: S3Mock (module s3mock-server, built) started on loopback, the tables copied to
#                    s3a://bench/tables and s3a://bench/target, discovery re-scans hourly (outside the window),
#                    Hudi's in-process lock (polls only read), no commit-to-schedule samples (the writer's lock
#                    is file/hdfs only); defaults TABLES 200, MEASURE_SECONDS 300, SAMPLES 0
#   SPREAD_SECONDS   after the measurement, polls counted every second for this long   [2 intervals]
#
# Both modes also report storage requests per table per hour (tsd_storage_requests_total, S3A's counters: none on
# local disk) over the measurement window, and the spread of polls over the interval (polls per second).
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
store=${STORE:-local}
case "$store" in
  local) tables=${TABLES:-1000}; measure=${MEASURE_SECONDS:-180}; samples=${SAMPLES:-3} ;;
  s3) tables=${TABLES:-200}; measure=${MEASURE_SECONDS:-300}; samples=${SAMPLES:-0} ;;
  *) echo "STORE must be local or s3: $store" >&2; exit 2 ;;
esac
interval=${POLL_INTERVAL:-30s}
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
s3mock=""
stop() { if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" || true; fi; }
cleanup() { stop "$daemon"; stop "$s3mock"; }
# Sums of the daemon's Prometheus samples: polls done, storage requests by op, throttled requests.
scrape() {
  curl -sf "http://localhost:$((port + 1))/prometheus" | awk '
    /^tsd_poll_duration_seconds_count/ { polls += $NF }
    /^tsd_storage_requests_total/ { match($0, /op="[a-z]+"/); op = substr($0, RSTART + 4, RLENGTH - 5); n[op] += $NF }
    /^tsd_storage_throttled_total/ { throttled += $NF }
    END { printf "%d %d %d %d %d %d %d\n", polls, n["list"], n["head"], n["get"], n["put"], n["delete"], throttled }'
}
trap cleanup EXIT

if [ ! -f "$jar" ]; then
  log "building hudi-tsd (mvn -DskipTests install)"
  (cd "$home" && mvn -B -q -DskipTests install)
fi

rm -rf "$dir"
mkdir -p "$dir/tables" "$dir/target" "$dir/conf"

log "writing the template table"
"${writer[@]}" create "$dir/template" 2>"$dir/writer.log"
java "${java_flags[@]}" -jar "$jar" once --table "$dir/template" \
  --hoodie-conf hoodie.compact.inline.max.delta.commits=1 >"$dir/once.log" 2>&1
log "template: $(du -sh "$dir/template" | cut -f1), $(find "$dir/template" -type f | wc -l) files; copying it $tables times"
if [ "$store" = s3 ]; then
  java -Dlogback.configurationFile="$home/bench/logback-quiet.xml" \
    -cp "$home/s3mock-server/target/classes:$home/api/target/lib/*" io.huditsd.testing.s3.S3MockServer \
    "$dir/s3" bench >"$dir/s3mock.out" 2>&1 &
  s3mock=$!
  until grep -q '^http://' "$dir/s3mock.out"; do
    kill -0 "$s3mock" 2>/dev/null || { log "S3Mock exited; see $dir/s3mock.out"; exit 1; }
    sleep 1
  done
  endpoint=$(grep -m1 '^http://' "$dir/s3mock.out")
  {
    echo '<?xml version="1.0"?>'
    echo '<configuration>'
    for kv in "fs.s3a.endpoint=$endpoint" fs.s3a.endpoint.region=us-east-1 fs.s3a.path.style.access=true \
        fs.s3a.connection.ssl.enabled=false \
        fs.s3a.aws.credentials.provider=org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider \
        fs.s3a.access.key=tsd-test fs.s3a.secret.key=tsd-test-secret; do
      echo "  <property><name>${kv%%=*}</name><value>${kv#*=}</value></property>"
    done
    echo '</configuration>'
  } >"$dir/conf/core-site.xml"
  log "S3Mock on $endpoint; copying"
  copy_start=$(date +%s)
  java "${java_flags[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml" \
    -cp "$dir/conf:$jar:$home/api/target/lib/*" "$home/bench/CopyToStore.java" \
    "$dir/template" s3a://bench/tables $((tables - 1)) s3a://bench/target/bench-target >"$dir/copy.log" 2>&1
  log "copied in $(( $(date +%s) - copy_start )) s"
  tables_root=s3a://bench/tables
  target_path=s3a://bench/target/bench-target
  discovery_interval=1h
  # No lock named: s3a tables get the daemon's S3 storage lock by default (idle polls do not take it).
  lock="hoodie.tsd.bench: s3"
else
  for i in $(seq 1 $((tables - 1))); do
    cp -a "$dir/template" "$dir/tables/$(printf 't%04d' "$i")"
  done
  cp -a "$dir/template" "$dir/target/bench-target"
  tables_root=$dir/tables
  target_path=$dir/target/bench-target
  discovery_interval=5m
  lock="hoodie.tsd.bench: local"
fi

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
  roots: [$tables_root]
  maxDepth: 1
  interval: $discovery_interval
tables:
  - path: $target_path
    id: bench-target
    hoodie:
      hoodie.compact.inline.max.delta.commits: "1"
EOF
if [ "$store" = s3 ]; then
  sed -i "s|^  maxDepth: 1|  maxDepth: 1\n  hoodie:\n    $lock|; s|^      hoodie.compact.inline.max.delta.commits: \"1\"|&\n      $lock|" "$dir/bench.yml"
fi

log "starting the daemon (-Xmx$heap)"
start_ms=$(now_ms)
java -Xmx"$heap" "${java_flags[@]}" -cp "$dir/conf:$jar" io.huditsd.api.TsdApplication server "$dir/bench.yml" \
  >"$dir/daemon.log" 2>&1 &
daemon=$!

# Every table registered, and none without a first poll.
all_polled() {
  local body
  body=$(curl -sf "http://localhost:$port/api/v1/tables") || return 1
  # A table not polled yet has no lastPoll field at all (the API leaves nulls out), so count the ones that have it.
  [ "$(grep -o '"lastPoll":"' <<<"$body" | wc -l)" -ge "$tables" ]
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
read -r p0 l0 h0 g0 u0 d0 th0 <<<"$(scrape)"
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
read -r p1 l1 h1 g1 u1 d1 th1 <<<"$(scrape)"
cpu_percent=$(awk -v c="$((c1 - c0))" -v hz="$ticks" -v ms="$((t1 - t0))" 'BEGIN { printf "%.2f", 100 * (c / hz) / (ms / 1000) }')
rss_kib=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")
threads=$(awk '/^Threads/ { print $2 }' "/proc/$daemon/status")
jcmd "$daemon" GC.run >/dev/null
live_kib=$(jcmd "$daemon" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { sub(/K,?/, "", $(i+1)); print $(i+1); exit } }')
spread=${SPREAD_SECONDS:-$((2 * interval_seconds))}
log "counting polls per second for $spread s"
per_second=()
last=$(scrape | cut -d' ' -f1)
for _ in $(seq 1 "$spread"); do
  sleep 1
  current=$(scrape | cut -d' ' -f1)
  per_second+=($((current - last)))
  last=$current
done
spread_stats=$(printf '%s\n' "${per_second[@]}" | sort -n | awk '{ v[NR] = $1; s += $1 } END {
  printf "min %d, median %d, max %d, mean %.1f", v[1], v[int((NR + 1) / 2)], v[NR], s / NR }')
spread_histogram=$(printf '%s\n' "${per_second[@]}" | sort -n | uniq -c | awk '{ printf "%s%d:%d", sep, $2, $1; sep = " " }')
failures=$(curl -sf "http://localhost:$port/api/v1/tables" | grep -o '"consecutiveFailures":[1-9]' | wc -l || true)

log "timing commit-to-schedule on bench-target ($samples samples)"
scheduled_count() { grep -c "Scheduled table=bench-target service=compaction" "$dir/daemon.log" || true; }
target_busy() {
  curl -sf "http://localhost:$port/api/v1/runs" \
    | grep -Eo '"table":"bench-target"[^}]*"status":"(queued|running|retry_wait)"' | grep -q . 
}
delays=()
for s in $(seq 1 "$samples"); do
  [ "$samples" -gt 0 ] || break
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
max_delay=none
[ ${#delays[@]} -eq 0 ] || max_delay=$(printf '%s\n' "${delays[@]}" | sort -n | tail -1)
# Let the last compaction finish: stopping the daemon under it would only exercise the retry on next start.
for _ in $(seq 1 120); do target_busy || break; sleep 1; done

cat <<EOF

poll-cost benchmark ($store), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1)
  tables registered and polled       $tables (polling.interval $interval, workers 2, -Xmx$heap)
  warm-up (every table polled once)  $((warm_ms / 1000)) s
  idle CPU over $((  (t1 - t0) / 1000 )) s              $cpu_percent % of one core
  heap used while idle (jstat)       avg $((sum_heap / n_heap / 1024)) MiB, max $((max_heap / 1024)) MiB
  live heap after a full GC          $((live_kib / 1024)) MiB
  RSS / threads                      $((rss_kib / 1024)) MiB / $threads
  tables failing their polls         $failures
  commit-to-schedule (ms)            ${delays[*]:-not sampled} (max $max_delay)
  polls in the window                $((p1 - p0)) ($(awk -v p=$((p1 - p0)) -v n="$tables" -v ms=$((t1 - t0)) 'BEGIN { printf "%.1f per table per hour", p / n * 3600000 / ms }'))
  storage requests in the window     list $((l1 - l0)), head $((h1 - h0)), get $((g1 - g0)), put $((u1 - u0)), delete $((d1 - d0)), throttled $((th1 - th0))
  per table per hour                 $(awk -v n="$tables" -v ms=$((t1 - t0)) -v l=$((l1 - l0)) -v h=$((h1 - h0)) -v g=$((g1 - g0)) 'BEGIN {
      f = 3600000 / ms / n; printf "list %.1f, head %.1f, get %.1f: $%.6f at $0.005/1,000 LIST and $0.0004/1,000 GET/HEAD", l * f, h * f, g * f, (l * 0.005 + (h + g) * 0.0004) / 1000 * f }')
  polls per second over $spread s     $spread_stats (polls:seconds $spread_histogram)
EOF
