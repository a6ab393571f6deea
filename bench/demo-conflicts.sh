#!/usr/bin/env bash
# Runs `bin/tsd demo` (the sample MOR table, its built-in writer every 3 s, the daemon compacting, clustering,
# cleaning and archiving it) for DURATION seconds, then counts from its log the writer's committed, conflicted and
# failed batches and the daemon's runs per service. Issue 19: no writer conflict over the demo's first 10 minutes.
#
# Knobs: DURATION (600), DEMO_DIR (/tmp/hudi-tsd-demo-check, wiped first), DEMO_PORT (18580; admin: +1).
# Needs the built jar (bin/tsd builds it on first use). Takes DURATION plus the start.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-600}
DIR=${DEMO_DIR:-/tmp/hudi-tsd-demo-check}
PORT=${DEMO_PORT:-18580}
rm -rf "$DIR"
mkdir -p "$DIR"
LOG=$DIR/demo.log
bin/tsd demo "$DIR" --port "$PORT" > "$LOG" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
sleep "$DURATION"
kill "$pid"
wait "$pid" || true

count() { grep -c -E "$1" "$LOG" || true; }
echo "demo ran ${DURATION}s; log $LOG"
echo "writer batches: committed $(count 'Demo writer committed'), conflicted $(count 'batch conflicted'), failed otherwise $(count 'Demo writer commit failed')"
for service in compaction clustering clean archive; do
  echo "$service runs: succeeded $(count "Finished table=demo_mor service=$service .*result=succeeded"), skipped $(count "Finished table=demo_mor service=$service .*result=skipped"), failed $(count "Finished table=demo_mor service=$service .*result=failed")"
done
echo "clustering runs that yielded to the writer: $(count 'yielded to a writer')"
grep 'Scheduled table=demo_mor service=clustering' "$LOG" | sed -E 's/.*fileGroups=([0-9]+).*skippedHot=([0-9]+).*/\1 \2/' \
  | awk '{f += $1; h += $2; n++} END {printf "clustering plans: %d, file groups planned %d, left out as hot %d\n", n, f, h}'
