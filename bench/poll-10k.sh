#!/usr/bin/env bash
# Poll cost at 10,000 idle tables: several builds of the daemon, one after another on the same tables, in one run.
#
# For each contender: the daemon's idle CPU share (of one core), heap after a full GC, RSS, how the first polls
# spread over the first interval, and commit-to-schedule on one table. Not part of `mvn verify`.
#
#   bench/poll-10k.sh                                        # this tree's api/target, 10,000 tables
#   TABLES=1000 CONTENDERS="before=/tmp/tsd-before now=api/target" bench/poll-10k.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR        working directory, wiped first             [/tmp/hudi-tsd-poll10k]
#   TABLES           registered tables, the target included     [10000]
#   CONTENDERS       name=dir pairs; dir holds hudi-tsd.jar and lib/ (a copy of api/target of some build)
#                    [now=api/target]
#   HEAPS            -Xmx per contender, in the order of CONTENDERS; the last one repeats   [512m]
#   POLL_INTERVAL    polling.interval                           [30s]
#   MEASURE_SECONDS  idle measurement window after warm-up      [120]
#   SAMPLES          commit-to-schedule samples per contender   [2]
#   JFR              1: record a profile (settings=profile) over the idle window, summarised with jfr-summary.py
#   REUSE_TABLES     1: keep the template and copies of an earlier run in BENCH_DIR if there are TABLES-1 of them
#   BENCH_PORT       REST port; the admin port is the next one  [18490]
#   SCRAPES          Prometheus scrapes after the idle window, each one's CPU reported (the first is cold)  [3]
#
# Setup: the template table of bench/poll-cost.sh (BenchWriter: MOR, v9, 3 partitions, metadata table, 82 files),
# compacted once with `once` so that nothing is due on it. The TABLES-1 idle tables under the discovery root are hard
# links of the template's files (`cp -al`): idle polls only read, and copying 800,000 files 10,000 times over would
# take longer than the measurement. The target table, which the samples write to, is a real copy (`cp -a`), fresh for
# each contender.
#
# Per contender: start `server` with -Xmx from HEAPS; wait until the REST API shows every table polled; wait one more
# interval; read every table's lastPoll (the phases over the interval show how first polls spread); sample /proc/<pid>/stat and jstat over MEASURE_SECONDS; full GC and GC.heap_info; SAMPLES commits to the target,
# each timed to the daemon's "Scheduled table=bench-target service=compaction" line; stop the daemon.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-poll10k}
tables=${TABLES:-10000}
measure=${MEASURE_SECONDS:-120}
samples=${SAMPLES:-2}
interval=${POLL_INTERVAL:-30s}
port=${BENCH_PORT:-18490}
read -r -a contenders <<<"${CONTENDERS:-now=api/target}"
read -r -a heaps <<<"${HEAPS:-512m}"
java_flags=(-Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
ticks=$(getconf CLK_TCK)
daemon=""

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
heap_used_kib() { jstat -gc "$1" | awk 'NR == 2 { printf "%d\n", $3 + $4 + $6 + $8 }'; }
polls_done() {
  curl -sf "http://localhost:$((port + 1))/prometheus" | awk '/^tsd_poll_duration_seconds_count/ { n += $NF } END { print n + 0 }'
}
stop() { if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" || true; fi; }
trap 'stop "$daemon"' EXIT
abs() { case "$1" in /*) echo "$1" ;; *) echo "$home/$1" ;; esac; }

first_jar=$(abs "${contenders[0]#*=}")/hudi-tsd.jar
writer=(java "${java_flags[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml"
  -cp "$first_jar:$(dirname "$first_jar")/lib/*" "$home/bench/BenchWriter.java")

if [ "${REUSE_TABLES:-0}" = 1 ] && [ -d "$dir/template" ] \
    && [ "$(find "$dir/tables" -mindepth 1 -maxdepth 1 | wc -l)" -eq $((tables - 1)) ]; then
  log "reusing the template and the $((tables - 1)) copies in $dir"
else
rm -rf "$dir"
mkdir -p "$dir/tables"
log "writing the template table"
"${writer[@]}" create "$dir/template" 2>"$dir/writer.log"
java "${java_flags[@]}" -jar "$first_jar" once --table "$dir/template" \
  --hoodie-conf hoodie.compact.inline.max.delta.commits=1 >"$dir/once.log" 2>&1
copy_start=$(now_ms)
for i in $(seq 1 $((tables - 1))); do
  printf '%s/tables/t%05d\0' "$dir" "$i"
done | xargs -0 -n 200 sh -c 'for d; do cp -al "$0" "$d"; done' "$dir/template"
log "template: $(find "$dir/template" -type f | wc -l) files; $((tables - 1)) hard-linked copies in $(( ($(now_ms) - copy_start) / 1000 )) s"
fi

results=()
for index in "${!contenders[@]}"; do
  name=${contenders[$index]%%=*}
  jar_dir=$(abs "${contenders[$index]#*=}")
  heap=${heaps[$index]:-${heaps[-1]}}
  run="$dir/run-$name"
  mkdir -p "$run"
  rm -rf "$dir/target" && mkdir -p "$dir/target" && cp -a "$dir/template" "$dir/target/bench-target"
  cat >"$run/bench.yml" <<EOF
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
  interval: 1h
tables:
  - path: $dir/target/bench-target
    id: bench-target
    hoodie:
      hoodie.compact.inline.max.delta.commits: "1"
EOF
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  log "[$name] starting the daemon (-Xmx$heap, $jar_dir), load $load_start"
  start_ms=$(now_ms)
  java -Xmx"$heap" "${java_flags[@]}" -cp "$jar_dir/hudi-tsd.jar" io.huditsd.api.TsdApplication server "$run/bench.yml" \
    >"$run/daemon.log" 2>&1 &
  daemon=$!
  # Not the Prometheus endpoint: its per-table gauges make one scrape of 10,000 tables cost seconds of CPU.
  all_polled() {
    local body
    body=$(curl -sf "http://localhost:$port/api/v1/tables") || return 1
    # A table not polled yet has no lastPoll field at all (the API leaves nulls out).
    [ "$(grep -o '"lastPoll":"' <<<"$body" | wc -l)" -ge "$tables" ]
  }
  until all_polled; do
    kill -0 "$daemon" 2>/dev/null || { log "[$name] daemon exited; see $run/daemon.log"; exit 1; }
    sleep 10
  done
  warm_ms=$(( $(now_ms) - start_ms ))
  log "[$name] every table polled once after $((warm_ms / 1000)) s; waiting one more interval"
  sleep "${interval%s}"
  # How the polls spread over the interval: each table keeps the phase of its first poll, so the phases of the
  # tables' last polls (lastPoll mod interval, in 1 s buckets) show the spread of first polls and of every round.
  curl -sf "http://localhost:$port/api/v1/tables" >"$run/tables.json"
  first_stats=$(python3 - "$run/tables.json" "${interval%s}" <<'PY'
import json, sys
from datetime import datetime
tables, interval = json.load(open(sys.argv[1])), int(sys.argv[2])
def seconds(value):
    if isinstance(value, (int, float)):
        return float(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
buckets = [0] * interval
for table in tables:
    if table.get("lastPoll") is not None:
        buckets[int(seconds(table["lastPoll"]) % interval)] += 1
ordered = sorted(buckets)
print("polls per second of the interval min %d, median %d, max %d, mean %.1f, %d s empty"
      % (ordered[0], ordered[len(ordered) // 2], ordered[-1], len(tables) / interval, buckets.count(0)))
PY
)
  log "[$name] $first_stats"

  load_measure=$(cut -d' ' -f1 /proc/loadavg)
  log "[$name] measuring for $measure s, load $load_measure"
  [ "${JFR:-0}" != 1 ] || jcmd "$daemon" JFR.start name=idle settings=profile >"$run/jfr.log" 2>&1
  p0=$(polls_done); t0=$(now_ms); c0=$(cpu_ticks "$daemon")
  max_heap=0; sum_heap=0; n_heap=0
  end=$(( $(date +%s) + measure ))
  while [ "$(date +%s)" -lt "$end" ]; do
    used=$(heap_used_kib "$daemon")
    sum_heap=$((sum_heap + used)); n_heap=$((n_heap + 1))
    [ "$used" -gt "$max_heap" ] && max_heap=$used
    sleep 5
  done
  t1=$(now_ms); c1=$(cpu_ticks "$daemon"); p1=$(polls_done)
  if [ "${JFR:-0}" = 1 ]; then
    jcmd "$daemon" JFR.dump name=idle filename="$run/idle.jfr" >"$run/jfr.log" 2>&1 || true
    jcmd "$daemon" JFR.stop name=idle >>"$run/jfr.log" 2>&1 || true
  fi
  cpu_s=$(awk -v c="$((c1 - c0))" -v hz="$ticks" 'BEGIN { printf "%.1f", c / hz }')
  cpu_percent=$(awk -v c="$((c1 - c0))" -v hz="$ticks" -v ms="$((t1 - t0))" 'BEGIN { printf "%.2f", 100 * (c / hz) / (ms / 1000) }')
  per_poll_ms=$(awk -v c="$((c1 - c0))" -v hz="$ticks" -v p="$((p1 - p0))" 'BEGIN { printf "%.3f", p ? 1000 * (c / hz) / p : 0 }')
  # Prometheus scrapes, as a monitoring system would make them every 15-60 s (outside the idle window): the first
  # runs cold code (the endpoint's first call since the start), so SCRAPES of them, each one's CPU reported.
  scrape_cpu=()
  for _ in $(seq 1 "${SCRAPES:-3}"); do
    s0=$(cpu_ticks "$daemon"); scrape_bytes=$(curl -sf "http://localhost:$((port + 1))/prometheus" | wc -c); s1=$(cpu_ticks "$daemon")
    scrape_cpu+=("$(awk -v c="$((s1 - s0))" -v hz="$ticks" 'BEGIN { printf "%.2f", c / hz }')")
  done
  scrape=$(awk -v b="$scrape_bytes" -v c="${scrape_cpu[*]}" 'BEGIN { gsub(/ /, ", ", c); printf "%s s CPU, %.1f MB", c, b / 1e6 }')
  rss_kib=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")
  threads=$(awk '/^Threads/ { print $2 }' "/proc/$daemon/status")
  jcmd "$daemon" GC.run >/dev/null
  live_kib=$(jcmd "$daemon" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { sub(/K,?/, "", $(i+1)); print $(i+1); exit } }')
  jcmd "$daemon" GC.class_histogram >"$run/histogram.txt" 2>/dev/null || true
  failures=$(curl -sf "http://localhost:$port/api/v1/tables" | grep -o '"consecutiveFailures":[1-9]' | wc -l || true)

  scheduled_count() { grep -c "Scheduled table=bench-target service=compaction" "$run/daemon.log" || true; }
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
      kill -0 "$daemon" 2>/dev/null || { log "[$name] daemon exited; see $run/daemon.log"; exit 1; }
      sleep 0.1
    done
    delay=$(( $(now_ms) - committed ))
    delays+=("$(awk -v d="$delay" 'BEGIN { printf "%.1f", d / 1000 }')")
    log "[$name] sample $s: scheduled ${delays[-1]} s after the commit completed"
  done
  for _ in $(seq 1 120); do target_busy || break; sleep 1; done
  stop "$daemon"; daemon=""
  if [ "${JFR:-0}" = 1 ] && [ -f "$run/idle.jfr" ]; then
    python3 "$home/bench/jfr-summary.py" "$run/idle.jfr" 25 >"$run/jfr-summary.txt" 2>&1 || true
  fi
  results+=("$(printf '| %s | %s | %d | %s; %s | %s / %s | %s | %d / %d | %d | %d / %d | %s | %s | %s | %s |' \
    "$name" "$heap" "$tables" "$((warm_ms / 1000)) s" "$first_stats" "$cpu_percent %" "$cpu_s s" "$per_poll_ms" \
    "$((sum_heap / n_heap / 1024))" "$((max_heap / 1024))" "$((live_kib / 1024))" "$((rss_kib / 1024))" "$threads" \
    "$failures" "${delays[*]:-none}" "$scrape" "$load_start / $load_measure")")
  log "[$name] done: ${results[-1]}"
done

cat <<EOF

poll-10k benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1), polling.interval $interval,
$tables tables ($((tables - 1)) idle + bench-target), idle window $measure s; per contender: $dir/run-NAME/

| contender | -Xmx | tables | all polled once after; spread | idle CPU (one core) / CPU s | CPU ms per poll | heap used avg / max MiB | live heap after full GC MiB | RSS MiB / threads | failing tables | commit-to-schedule s | Prometheus scrapes (CPU each) | load at start / window |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${results[@]}"
