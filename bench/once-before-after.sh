#!/usr/bin/env bash
# Two builds of hudi-tsd side by side: `bin/tsd once` of each, alternated, each run on its own `cp -a` of one source
# table, as whole processes under /usr/bin/time (wall, CPU, peak RSS). For a change's before and after in one run.
#
#   git worktree add /tmp/before <commit> && (cd /tmp/before && mvn -B -q -DskipTests package -pl api -am)
#   bench/once-before-after.sh /tmp/before compaction 3
#   bench/once-before-after.sh /tmp/before clustering 3
#   bench/once-before-after.sh /tmp/before rewrite 3
#
# Arguments: BEFORE (a built checkout; "after" is this one), WORK (compaction: the compaction benchmark's 200,000-row
# source table; clustering: the binary-copy benchmark's 200-file source, default plan strategy), RUNS (3).
# The source tables are those bench/compaction.sh and bench/binary-copy.sh leave under their BENCH_DIR (run each
# once first). Each build's class-data-sharing archive is written by one unmeasured run first.
set -euo pipefail
before=$(cd "${1:?usage: once-before-after.sh BEFORE_CHECKOUT compaction|clustering|rewrite [RUNS]}" && pwd)
work=${2:?compaction, clustering or rewrite}
runs=${3:-3}
after=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT_DIR:-/tmp/hudi-tsd-bench-before-after}
case "$work" in
  compaction)
    source_table=${SOURCE:-/tmp/hudi-tsd-bench-compaction/source-200000-60000-14-v9}
    args=(--services compaction) ;;
  clustering)
    source_table=${SOURCE:-/tmp/hudi-tsd-bench-bcopy/source-200x15000}
    args=(--services clustering --hoodie-conf hoodie.parquet.compression.codec=gzip
      --hoodie-conf hoodie.clustering.plan.strategy.hot.commits=0 --hoodie-conf hoodie.clustering.plan.strategy.hot.minutes=0) ;;
  rewrite)
    source_table=${SOURCE:-/tmp/hudi-tsd-bench-bcopy/source-200x15000}
    args=(--services clustering --hoodie-conf hoodie.parquet.compression.codec=gzip
      --hoodie-conf hoodie.clustering.plan.strategy.class=io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy
      --hoodie-conf hoodie.clustering.plan.strategy.hot.commits=0 --hoodie-conf hoodie.clustering.plan.strategy.hot.minutes=0) ;;
  *) echo "unknown work: $work (compaction, clustering or rewrite)" >&2; exit 2 ;;
esac
[ -d "$source_table/.hoodie" ] || { echo "no source table at $source_table: run bench/$([ "$work" = compaction ] && echo compaction || echo binary-copy).sh first" >&2; exit 2; }
mkdir -p "$out"

once() { # label home
  local label=$1 home=$2 table="$out/$1"
  rm -rf "$table"; cp -a "$source_table" "$table"; sync
  TSD_JAVA_OPTS="${HEAP:--Xmx2g}" /usr/bin/time -f '%e %U %S %M' -o "$out/$label.time" \
    "$home/bin/tsd" once --table "$table" "${args[@]}" >"$out/$label.out" 2>&1 || echo "$label: exit $?" >&2
  local run_ms
  run_ms=$(grep -o 'durationMs=[0-9]*' "$out/$label.out" | head -1 | cut -d= -f2)
  tail -1 "$out/$label.time" | awk -v l="$label" -v r="${run_ms:-?}" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    '{ printf "| %s | %.2f | %.2f | %d | %s | %s |\n", l, $1, $2 + $3, $4 / 1024, r, load }'
}

once warmup-before "$before" >/dev/null; once warmup-after "$after" >/dev/null
echo "| run | wall s | CPU s | peak RSS MiB | plan run ms | load |"
echo "|---|---|---|---|---|---|"
for i in $(seq 1 "$runs"); do
  once "before-$i" "$before"
  once "after-$i" "$after"
done
