#!/usr/bin/env bash
# Console render benchmark: the web console's tables page with 1,000 real Hudi tables (poll-cost's tables) in
# Debian's headless Chromium. Reports, per round, when the first page of rows is on screen (from navigation start)
# and the page's REST calls' durations; then the latency of GET /api/v1/table-list pages under 20 sequential
# requests per sort. Goal (issue 17): under 1 s, REST calls under the REST load benchmark's p99 (docs/benchmarks.md).
#
#   bench/console-render.sh                      # defaults below; about 4 minutes with the table copies
#   TABLES=200 bench/console-render.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR    working directory, wiped first            [/tmp/hudi-tsd-console-bench]
#   TABLES       tables under the discovery root           [1000]
#   ROUNDS       page loads measured                       [5]
#   BENCH_PORT   REST port; the admin port is the next one [18731]
#
# Needs api packaged (mvn -pl api -am package -DskipTests) and src-it's test classpath resolved (Selenium; the
# script asks Maven for it offline), /usr/bin/chromium and /usr/bin/chromedriver.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-console-bench}
tables=${TABLES:-1000}
rounds=${ROUNDS:-5}
port=${BENCH_PORT:-18731}
jar="$home/api/target/hudi-tsd.jar"
java_flags=(-Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
writer=(java "${java_flags[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml"
  -cp "$jar:$home/api/target/lib/*" "$home/bench/BenchWriter.java")
daemon=""

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
stop() { if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" || true; fi; }
trap 'stop "$daemon"' EXIT

[ -f "$jar" ] || { log "package the daemon first: mvn -B -pl api -am package -DskipTests"; exit 1; }
# src-it needs the Spark modules in the reactor for its order; each module writes the file, src-it last.
(cd "$home" && mvn -B -q -o -pl spark-peer,spark-runner,src-it dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$dir.classpath" >/dev/null)
selenium=$(cat "$dir.classpath")

rm -rf "$dir"
mkdir -p "$dir/tables"
# The tables of bench/poll-cost.sh: one template MOR table (insert + upsert, compacted once), copied.
log "writing the template table"
"${writer[@]}" create "$dir/template" 2>"$dir/writer.log"
java "${java_flags[@]}" -jar "$jar" once --table "$dir/template" \
  --hoodie-conf hoodie.compact.inline.max.delta.commits=1 >"$dir/once.log" 2>&1
log "copying it $tables times"
for i in $(seq 1 "$tables"); do
  cp -a "$dir/template" "$dir/tables/$(printf 't%04d' "$i")"
done

cat >"$dir/bench.yml" <<YML
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
polling:
  interval: 30s
workers:
  count: 2
discovery:
  roots: [$dir/tables]
  maxDepth: 1
  interval: 1h
YML

log "starting the daemon"
java -Xmx1g "${java_flags[@]}" -jar "$jar" server "$dir/bench.yml" >"$dir/daemon.log" 2>&1 &
daemon=$!
all_polled() {
  local body
  body=$(curl -sf "http://localhost:$port/api/v1/table-list?limit=1000&sort=lastPoll") || return 1
  [ "$(jq '.total' <<<"$body")" -ge "$tables" ] && [ "$(jq '[.items[] | select(.polled | not)] | length' <<<"$body")" -eq 0 ]
}
until all_polled; do
  kill -0 "$daemon" 2>/dev/null || { log "daemon exited; see $dir/daemon.log"; exit 1; }
  sleep 3
done
log "all $tables tables polled; rendering the tables page $rounds times"
java -cp "$selenium" "$home/bench/ConsoleRender.java" "http://localhost:$port/console/#/tables" "$rounds"

log "GET /api/v1/table-list, 20 requests per sort (limit 50)"
for sort in worst -logFileUnscheduledBytes id; do
  for _ in $(seq 1 20); do
    curl -s -o /dev/null -w '%{time_total}\n' "http://localhost:$port/api/v1/table-list?limit=50&sort=$sort"
  done | sort -n | awk -v s="$sort" '{ t[NR] = $1 * 1000 } END { printf "sort=%s: median %.0f ms, max %.0f ms\n", s, t[int((NR + 1) / 2)], t[NR] }'
done
