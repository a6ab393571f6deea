#!/usr/bin/env bash
# Default clustering benchmark, brief (issue 16): `bin/tsd once --services clustering` with the daemon's default
# strategies (binary copy: JavaBinaryCopyClusteringPlanStrategy, whose plans name JavaBinaryCopyClusteringExecutionStrategy)
# and, as tsd-rewrite, with the rewrite named (HotAwareClusteringPlanStrategy, whose plans name Hudi's
# JavaSortAndSizeExecutionStrategy, executed by the daemon's JavaStreamingRewriteExecutionStrategy) against Hudi's
# Spark rewrite (SparkSizeBasedClusteringPlanStrategy + SparkSortAndSizeExecutionStrategy through CALL
# run_clustering, Spark local[2], official bundle 1.2.0) on identical copies of a COW table of many small gzip files
# (bench/BinaryCopyTable.java: COMMITS files of ROWS_PER_COMMIT rows). Each contender a whole process under
# /usr/bin/time (wall, CPU, peak RSS), with -Xlog:gc (largest heap after a GC) and, with JFR=1, a flight recording
# (bench/jfr-summary.py reads it). Not part of `mvn verify`.
#
#   bench/clustering.sh                                   # 40 files x 15,000 rows
#   COMMITS=200 bench/clustering.sh                       # the issue's 200 files, 3,000,000 rows
#
# Environment (defaults in brackets):
#   BENCH_DIR        working directory; source tables are kept, runs/ and logs/ wiped [/tmp/hudi-tsd-bench-clustering]
#   COMMITS, ROWS_PER_COMMIT                                                          [40 15000]
#   HEAP             -Xmx of every JVM                                                [2g]
#   CONTENDERS       [tsd tsd-rewrite spark-rewrite]; also tsd-warnlog: tsd with the root logger at WARN
#                    (-Dlogback.configurationFile=bench/logback-warn.xml; `once` does that itself since issue 16)
#   JFR              1: record tsd and tsd-warnlog (settings=profile: execution and allocation samples) [1]
#   VERIFY_SPARK     1: count rows and distinct keys of every clustered copy with Spark [1]
# The daemon's hot-file-group rule is switched off (hot.commits=0, hot.minutes=0): the table was just written.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$home/bench/warm-cds.sh"
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench-clustering}
commits=${COMMITS:-40}
rows_per_commit=${ROWS_PER_COMMIT:-15000}
heap=${HEAP:-2g}
contenders=${CONTENDERS:-tsd tsd-rewrite spark-rewrite}
jfr=${JFR:-1}
verify_spark=${VERIFY_SPARK:-1}
jar="$home/api/target/hudi-tsd.jar"
peer_classpath_file="$home/spark-peer/target/spark-peer.classpath"
quiet=(-Dlogback.configurationFile="$home/bench/logback-quiet.xml" -Djdk.attach.allowAttachSelf=true
  -Djol.skipHotspotSAAttach=true)
spark_flags=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)
spark_rewrite="hoodie.clustering.plan.strategy.class=org.apache.hudi.client.clustering.plan.strategy.SparkSizeBasedClusteringPlanStrategy,hoodie.clustering.execution.strategy.class=org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
hot_off=(--hoodie-conf hoodie.clustering.plan.strategy.hot.commits=0 --hoodie-conf hoodie.clustering.plan.strategy.hot.minutes=0)

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }
# The largest heap left after a collection, MiB, from -Xlog:gc.
gc_after() { grep -o '[0-9]*[KMG]->[0-9]*[KMG]' "$1" 2>/dev/null | awk -F'->' '
  function mib(v) { u = substr(v, length(v)); n = substr(v, 1, length(v) - 1) + 0
    return u == "G" ? n * 1024 : u == "K" ? n / 1024 : n }
  { a = mib($2); if (a > m) m = a } END { printf "%d", m }'; }

[ -f "$jar" ] || (cd "$home" && mvn -B -q -DskipTests package -pl api -am)
[ -f "$peer_classpath_file" ] || (cd "$home" && mvn -B -q -DskipTests package -f spark-peer/pom.xml)
spark_classpath="$dir/classes/spark:$(cat "$peer_classpath_file")"

mkdir -p "$dir"
source_table="$dir/source-${commits}x${rows_per_commit}"
if [ ! -f "$source_table/.built" ]; then
  log "building the source table in $source_table"
  rm -rf "$source_table"
  java -Xmx"$heap" "${quiet[@]}" -cp "$jar:$home/api/target/lib/*" "$home/bench/BinaryCopyTable.java" \
    "$source_table" "$commits" "$rows_per_commit" 2>"$dir/source.log"
  touch "$source_table/.built"
fi
rm -rf "$dir/classes" "$dir/runs" "$dir/logs"
mkdir -p "$dir/classes/spark" "$dir/runs" "$dir/logs"
javac -nowarn -d "$dir/classes/spark" -cp "$(cat "$peer_classpath_file")" "$home/bench/SparkBinaryCopyBench.java" \
  2>&1 | grep -v '^Note:' >&2 || true
source_bytes=$(find "$source_table" -path "$source_table/.hoodie" -prune -o -name '*.parquet' -printf '%s\n' \
  | awk '{ s += $1 } END { print s }')

rows_md=()
succeeded=()
declare -A wall cpu
contend() { # name COMMAND...
  local name=$1 status=ok before
  shift
  rm -rf "$dir/runs/$name"; cp -a "$source_table" "$dir/runs/$name"
  sync
  before=$(load)
  log "$name (load $before)"
  /usr/bin/time -f '%e %U %S %M' -o "$dir/logs/$name.time" "$@" >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" \
    || status="exit $?"
  [ "$status" = ok ] && succeeded+=("$dir/runs/$name")
  local t
  t=$(tail -1 "$dir/logs/$name.time")
  wall[$name]=$(awk '{ print $1 }' <<<"$t")
  cpu[$name]=$(awk '{ printf "%.2f", $2 + $3 }' <<<"$t")
  rows_md+=("| $name | **$(awk '{ print $1 }' <<<"$t")** | $(awk '{ printf "%.2f", $2 + $3 }' <<<"$t") | $(awk '{ printf "%d", $4 / 1024 }' <<<"$t") | $(gc_after "$dir/logs/$name.gc") | $before | $status |")
  log "$name: $t ($status)"
}
tsd_opts() { # name extra...
  local name=$1
  shift
  local flags="-Xmx$heap -Xlog:gc:file=$dir/logs/$name.gc"
  [ "$jfr" = 1 ] && flags="$flags -XX:StartFlightRecording=filename=$dir/logs/$name.jfr,settings=profile"
  echo "$flags $*"
}

# bin/tsd writes its class-data-sharing archive when the first `once` of a build and --services exits: done here,
# unmeasured (a whole clustering), so that the tsd contenders start as a user's every later run does.
if [[ " $contenders " == *" tsd"* ]]; then
  warm_cds_archive "$home" "$dir" "$source_table" --services clustering "${hot_off[@]}"
fi
started=$(date -u +%Y-%m-%dT%H:%MZ)
for contender in $contenders; do
  case $contender in
    tsd) TSD_JAVA_OPTS="$(tsd_opts tsd)" contend tsd "$home/bin/tsd" once --table "$dir/runs/tsd" \
      --services clustering "${hot_off[@]}" ;;
    tsd-rewrite) TSD_JAVA_OPTS="$(tsd_opts tsd-rewrite)" contend tsd-rewrite "$home/bin/tsd" once \
      --table "$dir/runs/tsd-rewrite" --services clustering "${hot_off[@]}" \
      --hoodie-conf hoodie.clustering.plan.strategy.class=io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy ;;
    tsd-warnlog) TSD_JAVA_OPTS="$(tsd_opts tsd-warnlog "-Dlogback.configurationFile=$home/bench/logback-warn.xml")" \
      contend tsd-warnlog "$home/bin/tsd" once --table "$dir/runs/tsd-warnlog" --services clustering "${hot_off[@]}" ;;
    spark-rewrite) contend spark-rewrite java -Xmx"$heap" -Xlog:gc:file="$dir/logs/spark-rewrite.gc" "${spark_flags[@]}" \
      -Dbench.spark.dir="$dir/spark" -cp "$spark_classpath" SparkBinaryCopyBench cluster spark-rewrite \
      "$dir/runs/spark-rewrite" "$spark_rewrite" ;;
    *) log "unknown contender '$contender'"; exit 2 ;;
  esac
done

verified=""
if [ "$verify_spark" = 1 ] && [ ${#succeeded[@]} -gt 0 ]; then
  java -Xmx"$heap" "${spark_flags[@]}" -Dbench.spark.dir="$dir/spark" -cp "$spark_classpath" \
    SparkBinaryCopyBench count "${succeeded[@]}" >"$dir/logs/spark-verify.out" 2>"$dir/logs/spark-verify.err" || true
  verified=$(grep '^@@result' "$dir/logs/spark-verify.out" | sed "s|^@@result path=$dir/runs/||; s/ session_ms=.*//" || true)
fi
{
  echo "clustering benchmark, $started, $(nproc) cores, load at start $(load)"
  echo "source: $commits base files, $source_bytes bytes, $((commits * rows_per_commit)) rows; HEAP=$heap"
  echo
  echo "| contender | wall s | CPU s | peak RSS MiB | largest heap after GC MiB | load before | status |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows_md[@]}"
  if [ -n "${wall[tsd]:-}" ] && [ -n "${wall[spark-rewrite]:-}" ]; then
    echo
    awk -v sw="${wall[spark-rewrite]}" -v tw="${wall[tsd]}" -v sc="${cpu[spark-rewrite]}" -v tc="${cpu[tsd]}" \
      'BEGIN { printf "spark-rewrite / tsd: %.2fx wall, %.2fx CPU\n", sw / tw, sc / tc }'
  fi
  if [ -n "${wall[tsd-rewrite]:-}" ] && [ -n "${wall[spark-rewrite]:-}" ]; then
    awk -v sw="${wall[spark-rewrite]}" -v tw="${wall[tsd-rewrite]}" -v sc="${cpu[spark-rewrite]}" \
      -v tc="${cpu[tsd-rewrite]}" 'BEGIN { printf "spark-rewrite / tsd-rewrite: %.2fx wall, %.2fx CPU\n", sw / tw, sc / tc }'
  fi
  if [ -n "$verified" ]; then
    echo
    echo "read back with Spark (expected $((commits * rows_per_commit)) rows and distinct keys):"
    sed 's/^/  /' <<<"$verified"
  fi
} | tee "$dir/results.md"
