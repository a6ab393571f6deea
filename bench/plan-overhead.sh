#!/usr/bin/env bash
# A warm daemon's fixed cost per plan (issue 16): `bin/tsd demo` (a small MOR table, its built-in writer upserting
# every 3 s, the daemon compacting, cleaning, archiving and clustering it) runs for DURATION seconds; then, for every
# plan that finished, the time from its instant (Hudi takes the instant time when scheduling starts, under the
# table lock) to the daemon's "Finished" line: scheduling, queueing, execution, commit and metadata-table update of
# a tiny plan, i.e. almost nothing but fixed cost. The first plan of each service is the cold one (classes loaded and
# compiled); the warm figure is the median of the others. The demo's plans are not all tiny (its writer updates
# between 2 and 30 file groups between two compactions), so the script also fits the warm plans' times to their file
# groups by least squares: the intercept is the fixed cost of a plan, the slope what each file group adds. Not part
# of `mvn verify`.
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
started = re.compile(r'Started table=\S+ service=(\S+) instant=(\d{17}) .*attempt=1 .*fileGroups=(\d+)')
runs = {}
file_groups = {}
day = None
for line in open(sys.argv[1], errors='replace'):
    s = started.search(line)
    if s:
        file_groups[(s.group(1), s.group(2))] = int(s.group(3))
        continue
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
print()
print(f"{'service':<12} {'warm plans':>10} {'file groups':>12} {'fixed s':>8} {'per file group ms':>18} {'under 1 s':>10}"
      "   (least squares of instant to Finished over the plan's file groups)")
for service, values in sorted(runs.items()):
    points = [(file_groups[(service, v[2])], v[0]) for v in values[1:] if (service, v[2]) in file_groups]
    xs = [x for x, _ in points]
    if len(points) < 4 or len(set(xs)) < 2:
        continue
    mean_x = statistics.fmean(xs)
    mean_y = statistics.fmean(y for _, y in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x in xs)
    fixed = mean_y - slope * mean_x
    under = sum(1 for _, y in points if y < 1.0)
    print(f"{service:<12} {len(points):>10} {min(xs):>5}-{max(xs):<6} {fixed:>8.2f} {slope * 1000:>18.0f} {under:>4} of {len(points):<3}")
PY
