#!/usr/bin/env bash
# A warm daemon's fixed cost per plan (issue 16): `bin/tsd demo` (a small MOR table, its built-in writer upserting
# every 3 s, the daemon compacting, cleaning, archiving and clustering it) runs for DURATION seconds; then, for every
# plan that finished, the time from its instant (Hudi takes the instant time when scheduling starts, under the
# table lock) to the daemon's "Finished" line: scheduling, queueing, execution, commit and metadata-table update of
# a tiny plan, i.e. almost nothing but fixed cost. The first plan of each service is the cold one (classes loaded and
# compiled); the warm figure is the median of the others. Not part of `mvn verify`.
#
# Knobs: DURATION (240), DEMO_DIR (/tmp/hudi-tsd-plan-overhead, wiped first), DEMO_PORT (18590; admin: +1).
# Needs the built jar (bin/tsd builds it on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-240}
DIR=${DEMO_DIR:-/tmp/hudi-tsd-plan-overhead}
PORT=${DEMO_PORT:-18590}
rm -rf "$DIR"
mkdir -p "$DIR"
LOG=$DIR/demo.log
bin/tsd demo "$DIR" --port "$PORT" > "$LOG" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
sleep "$DURATION"
kill "$pid"
wait "$pid" || true

echo "demo ran ${DURATION}s; log $LOG; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# Log lines start with the local time (HH:MM:SS.mmm, or Dropwizard's [YYYY-MM-DD HH:MM:SS,mmm]); instants are
# yyyyMMddHHmmssSSS in the same zone.
python3 - "$LOG" <<'PY'
import re, sys, statistics
from datetime import datetime
line_time = re.compile(r'(\d{4}-\d\d-\d\d)?[ T]?(\d\d:\d\d:\d\d)[.,](\d{3})')
finished = re.compile(r'Finished table=\S+ service=(\S+) instant=(\d{17}) .*result=succeeded.*durationMs=(\d+)')
runs = {}
day = None
for line in open(sys.argv[1], errors='replace'):
    m = finished.search(line)
    if not m:
        continue
    t = line_time.search(line)
    if not t:
        continue
    service, instant, duration = m.group(1), m.group(2), int(m.group(3))
    start = datetime.strptime(instant, '%Y%m%d%H%M%S%f')
    date = t.group(1) or start.strftime('%Y-%m-%d')
    end = datetime.strptime(f'{date} {t.group(2)}.{t.group(3)}', '%Y-%m-%d %H:%M:%S.%f')
    runs.setdefault(service, []).append(((end - start).total_seconds(), duration / 1000.0, instant))
print(f"{'service':<12} {'plans':>5} {'cold s':>8} {'warm median s':>14} {'warm p90 s':>11} {'run median s':>13}   (instant to Finished; run = execution alone)")
for service, values in sorted(runs.items()):
    cold = values[0][0]
    warm = [v[0] for v in values[1:]]
    run = [v[1] for v in values[1:]]
    if warm:
        p90 = sorted(warm)[max(0, int(round(0.9 * len(warm))) - 1)]
        print(f"{service:<12} {len(values):>5} {cold:>8.2f} {statistics.median(warm):>14.2f} {p90:>11.2f} {statistics.median(run):>13.2f}")
    else:
        print(f"{service:<12} {len(values):>5} {cold:>8.2f} {'-':>14} {'-':>11} {'-':>13}")
PY
