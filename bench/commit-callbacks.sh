#!/usr/bin/env bash
# Commit-callback benchmark: commit-to-schedule delay and storage requests, polling every 30 s against Hudi's HTTP
# commit callback with a 10-minute poll, side by side on one S3 server (or local disk) under one writer.
#
#   bench/commit-callbacks.sh                                  # defaults below (about 9 minutes)
#   TABLES=2 ROUNDS=3 IDLE_SECONDS=60 bench/commit-callbacks.sh   # quicker
#   STORE=local bench/commit-callbacks.sh                      # delays only (no request counters on local disk)
#
# Environment (defaults in brackets):
#   BENCH_DIR      working directory, wiped first                              [/tmp/hudi-tsd-callback-bench]
#   STORE          s3: S3Mock (module s3mock-server, built) on loopback, tables on s3a://bench/; or local  [s3]
#   TABLES         tables per mode                                             [3]
#   PERIOD_SECONDS a writer round (one upsert into every table) starts this often  [60]
#   ROUNDS         writer rounds                                               [4]
#   IDLE_SECONDS   after the writer stops and the compactions end, an idle window of this length  [180]
#   POLL_INTERVAL  polling.interval of the polling daemon                      [30s]
#   DEBOUNCE       commitCallbacks.debounce of the callback daemon             [2s]
#   BENCH_PORT     REST port of the polling daemon; its admin port +1, the callback daemon's +2 and +3  [18490]
#   S3A_CONNECTIONS  fs.s3a.connection.maximum of daemons and writer (S3A's default is 96: a daemon ran dry of
#                  connections after about ten compactions here; see docs/benchmarks.md)  [1000]
#
# What it does: starts S3Mock (STORE=s3), creates 2*TABLES small MOR tables with one insert each
# (bench/CallbackBenchWriter.java), starts two daemons on them: (a) "polling" services the first TABLES tables and
# polls every POLL_INTERVAL, no callbacks; (b) "callbacks" services the other TABLES, polls every 10 minutes and has
# commitCallbacks on. Both compact after every delta commit (services [compaction]). It waits until both have
# polled every table and compacted the first inserts, then the one writer upserts into all 2*TABLES tables every
# PERIOD_SECONDS for ROUNDS rounds, the (b) tables with hoodie.write.commit.callback.* pointed at daemon (b); after
# each commit a watcher in the writer times how long until a compaction requested after it is on the table's
# timeline. Storage requests are each daemon's tsd_storage_requests_total (S3A's statistics), scraped around the
# writing window and around the idle window that follows.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-callback-bench}
store=${STORE:-s3}
tables=${TABLES:-3}
period=${PERIOD_SECONDS:-60}
rounds=${ROUNDS:-4}
idle=${IDLE_SECONDS:-180}
interval=${POLL_INTERVAL:-30s}
debounce=${DEBOUNCE:-2s}
port=${BENCH_PORT:-18490}
jar="$home/api/target/hudi-tsd.jar"
java_flags=(-Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
writer=(java "${java_flags[@]}" -Dlogback.configurationFile="$home/bench/logback-quiet.xml"
  -cp "$dir/conf:$jar:$home/api/target/lib/*" "$home/bench/CallbackBenchWriter.java")
key="bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
polling="" callbacks="" s3mock=""

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }
stop() { if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" || true; fi; }
cleanup() { stop "$polling"; stop "$callbacks"; stop "$s3mock"; }
trap cleanup EXIT
# One daemon's sums: polls, callback polls, list, head, get, put, delete requests.
scrape() {
  curl -sf "http://localhost:$1/prometheus" | awk '
    /^tsd_poll_duration_seconds_count/ { polls += $NF }
    /^tsd_commit_callback_polls_total/ { cbpolls += $NF }
    /^tsd_storage_requests_total/ { match($0, /op="[a-z]+"/); op = substr($0, RSTART + 4, RLENGTH - 5); n[op] += $NF }
    END { printf "%d %d %d %d %d %d %d\n", polls, cbpolls, n["list"], n["head"], n["get"], n["put"], n["delete"] }'
}
# Per table per hour and its price from two scrapes: "$before" "$after" ms tables.
rate() {
  awk -v b="$1" -v a="$2" -v ms="$3" -v n="$4" 'BEGIN {
    split(b, x, " "); split(a, y, " "); f = 3600000 / ms / n
    polls = (y[1] - x[1]) * f; cb = (y[2] - x[2]) * f
    l = (y[3] - x[3]) * f; h = (y[4] - x[4]) * f; g = (y[5] - x[5]) * f; p = (y[6] - x[6]) * f; d = (y[7] - x[7]) * f
    # S3 Standard list prices: LIST (and PUT, COPY, POST) $0.005 per 1,000; GET (and HEAD) $0.0004 per 1,000;
    # DELETE free. Per 1,000 tables over 30 days (720 hours).
    cost = ((l + p) * 0.005 + (h + g) * 0.0004) / 1000 * 1000 * 720
    listcost = l * 0.005 / 1000 * 1000 * 720
    printf "polls %.1f (by callbacks %.1f); list %.1f, head %.1f, get %.1f, put %.1f, delete %.1f; $%.2f per 1,000 tables per month ($%.2f of it LIST)",
      polls, cb, l, h, g, p, d, cost, listcost }'
}
# Connections a process holds open to S3Mock (S3A keeps one per open input stream, and idle ones in its pool).
connections() {
  if [ -n "${s3port:-}" ]; then ss -tnp state established "( dport = :$s3port )" | grep -c "pid=$1," || true; else echo -; fi
}
stats() {
  sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "none"; exit }
    printf "p50 %.1f s, max %.1f s (n=%d)", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000, NR }'
}

if [ ! -f "$jar" ]; then
  echo "build the daemon first: mvn -B -q -o -pl api -am package -DskipTests" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/conf" "$dir/tables"

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
        fs.s3a.access.key=tsd-test fs.s3a.secret.key=tsd-test-secret \
        "fs.s3a.connection.maximum=${S3A_CONNECTIONS:-1000}"; do
      echo "  <property><name>${kv%%=*}</name><value>${kv#*=}</value></property>"
    done
    echo '</configuration>'
  } >"$dir/conf/core-site.xml"
  root=s3a://bench
  s3port=${endpoint##*:}
  s3port=${s3port%%/*}
  log "S3Mock on $endpoint"
elif [ "$store" = local ]; then
  root=$dir/tables
else
  echo "STORE must be s3 or local: $store" >&2
  exit 2
fi

polling_paths=() callback_paths=()
for i in $(seq 1 "$tables"); do
  polling_paths+=("$root/poll$(printf '%02d' "$i")")
  callback_paths+=("$root/cb$(printf '%02d' "$i")")
done
log "creating $((2 * tables)) tables"
"${writer[@]}" create "${polling_paths[@]}" "${callback_paths[@]}" >"$dir/create.log" 2>&1

for p in "$port" "$((port + 1))" "$((port + 2))" "$((port + 3))"; do
  # A daemon that cannot bind exits, and whatever holds the port would be measured instead.
  if ss -tln | grep -q ":$p "; then log "port $p is in use; set BENCH_PORT"; exit 1; fi
done
printf '%s\n' "$key" >"$dir/callback-key"
# daemon_yml PORT POLL_INTERVAL EXTRA_YAML PATH...
daemon_yml() {
  local app=$1 every=$2 extra=$3
  shift 3
  cat <<EOF
server:
  applicationConnectors:
    - type: http
      port: $app
  adminConnectors:
    - type: http
      port: $((app + 1))
  requestLog:
    appenders: []
logging:
  level: WARN
  loggers:
    io.huditsd: INFO
    org.apache.hudi.client.heartbeat.HoodieHeartbeatClient: ERROR
polling:
  interval: $every
  maxBackoff: $every
workers:
  count: 2
services: [compaction]
hoodie:
  hoodie.compact.inline.max.delta.commits: "1"
$extra
tables:
EOF
  for path in "$@"; do
    printf '  - path: %s\n    id: %s\n' "$path" "${path##*/}"
  done
}
daemon_yml "$port" "$interval" "" "${polling_paths[@]}" >"$dir/polling.yml"
daemon_yml "$((port + 2))" 10m "commitCallbacks:
  keyFile: $dir/callback-key
  debounce: $debounce" "${callback_paths[@]}" >"$dir/callbacks.yml"
# Started in this shell (not in $(...)), so that cleanup can wait for them.
java -Xmx512m "${java_flags[@]}" -cp "$dir/conf:$jar" io.huditsd.api.TsdApplication server "$dir/polling.yml" \
  >"$dir/polling.log" 2>&1 &
polling=$!
java -Xmx512m "${java_flags[@]}" -cp "$dir/conf:$jar" io.huditsd.api.TsdApplication server "$dir/callbacks.yml" \
  >"$dir/callbacks.log" 2>&1 &
callbacks=$!
log "daemons started: polling (pid $polling, port $port), callbacks (pid $callbacks, port $((port + 2)))"

# Every table polled, and no run queued or running: the compactions of the first inserts are done.
settled() {
  local body runs
  body=$(curl -sf "http://localhost:$1/api/v1/tables") || return 1
  runs=$(curl -sf "http://localhost:$1/api/v1/runs") || return 1
  # A table not polled yet has no lastPoll field at all (the API leaves nulls out), so count the ones that have it.
  [ "$(grep -o '"lastPoll":"' <<<"$body" | wc -l)" -ge "$tables" ] \
    && ! grep -Eq '"status":"(queued|running|retry_wait)"' <<<"$runs"
}
for p in "$port" "$((port + 2))"; do
  until settled "$p"; do
    kill -0 "$polling" 2>/dev/null && kill -0 "$callbacks" 2>/dev/null \
      || { log "a daemon exited; see $dir/polling.log and $dir/callbacks.log"; exit 1; }
    sleep 2
  done
done
kill -0 "$polling" 2>/dev/null && kill -0 "$callbacks" 2>/dev/null \
  || { log "a daemon exited; see $dir/polling.log and $dir/callbacks.log"; exit 1; }
log "both daemons settled; writing $rounds rounds every $period s"

a0=$(scrape $((port + 1))); b0=$(scrape $((port + 3))); t0=$(now_ms)
ca0=$(connections "$polling"); cb0=$(connections "$callbacks")
cb_prefixed=()
for path in "${callback_paths[@]}"; do cb_prefixed+=("cb:$path"); done
"${writer[@]}" write $((period * 1000)) "$rounds" "http://127.0.0.1:$((port + 2))/v1/hoodie/commit-callback" "$key" \
  "${polling_paths[@]}" "${cb_prefixed[@]}" >"$dir/writer.out" 2>"$dir/writer.log" || log "writer exited with $?"
for p in "$port" "$((port + 2))"; do until settled "$p"; do sleep 2; done; done
a1=$(scrape $((port + 1))); b1=$(scrape $((port + 3))); t1=$(now_ms)
ca1=$(connections "$polling"); cb1=$(connections "$callbacks")
log "writer done after $(( (t1 - t0) / 1000 )) s; idle for $idle s"
sleep "$idle"
a2=$(scrape $((port + 1))); b2=$(scrape $((port + 3))); t2=$(now_ms)
ca2=$(connections "$polling"); cb2=$(connections "$callbacks")
failures=$(cat "$dir/polling.log" "$dir/callbacks.log" | grep -c 'Poll failed' || true)

commits=$(grep -c '^committed' "$dir/writer.out" || true)
failed=$(grep -c '^failed' "$dir/writer.out" || true)
missed=$(grep -c '^missed' "$dir/writer.out" || true)
cat <<EOF

commit-callback benchmark ($store), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)
  tables per mode $tables; writer: an upsert into every table every $period s, $rounds rounds ($commits commits, $failed failed, $missed without a compaction seen within 120 s)
  commit-to-schedule, polling every $interval     $(awk '$1 == "delay" && $2 == "polling" { print $5 }' "$dir/writer.out" | stats)
  commit-to-schedule, callbacks (poll 10m)   $(awk '$1 == "delay" && $2 == "callbacks" { print $5 }' "$dir/writer.out" | stats)
  per table per hour while writing ($(( (t1 - t0) / 1000 )) s)
    polling every $interval   $(rate "$a0" "$a1" $((t1 - t0)) "$tables")
    callbacks, poll 10m       $(rate "$b0" "$b1" $((t1 - t0)) "$tables")
  per table per hour while idle ($(( (t2 - t1) / 1000 )) s)
    polling every $interval   $(rate "$a1" "$a2" $((t2 - t1)) "$tables")
    callbacks, poll 10m       $(rate "$b1" "$b2" $((t2 - t1)) "$tables")
  failed polls (both daemons)   $failures
  S3 connections open (before writing, after, after idle)   polling $ca0, $ca1, $ca2; callbacks $cb0, $cb1, $cb2
EOF
