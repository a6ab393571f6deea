#!/usr/bin/env bash
# Binary-copy clustering benchmark (issue 8): the daemon's Java binary copy against Hudi's Java rewrite, Hudi's own
# Spark binary copy and a plain copy of the same bytes, each on an identical copy of one table, in one run.
#
# Reports, per contender, seconds spent planning, executing (copying or rewriting) and committing, in wall time and
# in the process's CPU time (every thread, read when Hudi logs each phase boundary), the JVM's wall time, bytes,
# files and row groups written, rows read back, and heap; for a whole `bin/tsd once`, its copying phase and that
# phase's parts (reading sources, page indexes and footer, column statistics) from the daemon's log, against `cp`.
# Not part of `mvn verify`. About 5-9 minutes (most of it
# the rewrite and the Spark sessions) once the source table exists (building it takes 4-5 more minutes; it is kept in BENCH_DIR for later runs).
#
#   bench/binary-copy.sh                                  # everything, defaults below
#   CONTENDERS="java-rewrite plain-copy" bench/binary-copy.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR        working directory; the source table is kept, runs/ is wiped   [/tmp/hudi-tsd-bench-bcopy]
#   COMMITS          source table: commits, one base file each                       [200]
#   ROWS_PER_COMMIT  source table: rows per commit                                   [15000]
#   CONTENDERS       which runs, in this order [tsd-copy java-rewrite spark-copy plain-copy tsd-copy-warm
#                                               spark-copy-warm tsd-copy-x tsd-copy-2x tsd-copy-4x]
#                      tsd-copy     the daemon's binary copy (io.huditsd.executors.clustering.JavaBinaryCopy*),
#                                   Hudi's default group limits: one group of every file
#                      java-rewrite Hudi's JavaSizeBasedClusteringPlanStrategy + JavaSortAndSizeExecutionStrategy
#                      spark-copy   Hudi's SparkStreamCopyClustering{Plan,Execution}Strategy through
#                                   CALL run_clustering in Spark 3.5.5 local[2], official hudi-spark3.5-bundle 1.2.0
#                      plain-copy   the base files copied with `cp`, then with Java's Files.copy in a JVM
#                      tsd-once-copy  `bin/tsd once --services clustering` with the binary-copy plan strategy, the
#                                   whole process timed as an operator runs it (not in the default list)
#                      tsd-once-copy-c1  the same with -XX:TieredStopAtLevel=1 (the quick JIT compiler only)
#                      tsd-once-copy-fullinline  the same with the JVM's own C2 inlining limits, which bin/tsd lowers
#                                   for a once (-XX:FreqInlineSize=325 -XX:InlineSmallCode=2500)
#                      tsd-copy-warm, spark-copy-warm  as tsd-copy and spark-copy, measured after one unmeasured
#                                   clustering of another copy in the same JVM: Hudi's classes loaded and compiled,
#                                   as in a long-running daemon or Spark application
#                      tsd-copy-x   the daemon's binary copy of one group of at most GROUP_BYTES, in GROUP_HEAP
#                      tsd-copy-2x  the same with a group twice as large, tsd-copy-4x four times (heap against
#                                   group size: one heap for the three, small enough to collect often)
#   GROUP_BYTES      group size X of tsd-copy-x                                      [67108864] (64 MiB)
#   HEAP             -Xmx of every JVM but the rewrite's and the group-size runs'    [2g]
#   GROUP_HEAP       -Xmx of tsd-copy-x, -2x and -4x                                 [256m]
#   REWRITE_HEAP     -Xmx of java-rewrite, which holds a group's records in memory   [8g]
#   VERIFY_SPARK     1: read every clustered table back with Spark at the end        [1]
#   JFR              1: record a Java Flight Recording of each Java contender        [0]
#                       (BENCH_DIR/logs/NAME.jfr; sampling adds a little to the timings)
#
# What it does: builds the source table once with bench/BinaryCopyTable.java (Hudi's Java writer; COPY_ON_WRITE,
# table version 9, one partition, 12 columns, gzip, metadata table with files, column_stats and partition_stats as
# a Spark writer has it). Compiles bench/BinaryCopyBench.java against the daemon's class path and
# bench/SparkBinaryCopyBench.java against the spark-peer module's. For each contender: `cp -a` of the source table,
# `sync`, then the contender in a JVM of its own with -Xlog:gc; then `BinaryCopyBench describe` reads the footers of
# the table's latest base files. Heap is given as the sum of the heap pools' peak use (MemoryPoolMXBean, printed by
# the program at exit; an upper bound, as pools peak at different moments) and, from the GC log, the largest heap in
# use when a collection started, the largest left after one, and the largest left after one during the execute phase
# (the copy's own live set). Every timing is with the files in the page cache. Results go to stdout as a markdown table and to BENCH_DIR/results.md.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$home/bench/warm-cds.sh"
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench-bcopy}
commits=${COMMITS:-200}
rows_per_commit=${ROWS_PER_COMMIT:-15000}
contenders=${CONTENDERS:-tsd-copy java-rewrite spark-copy plain-copy tsd-copy-warm spark-copy-warm tsd-copy-x tsd-copy-2x tsd-copy-4x}
group_bytes=${GROUP_BYTES:-67108864}
heap=${HEAP:-2g}
rewrite_heap=${REWRITE_HEAP:-8g}
group_heap=${GROUP_HEAP:-256m}
verify_spark=${VERIFY_SPARK:-1}
jfr=${JFR:-0}
jar="$home/api/target/hudi-tsd.jar"
peer_classpath_file="$home/spark-peer/target/spark-peer.classpath"
java_classpath="$dir/classes/java:$jar:$home/api/target/lib/*"
spark_classpath="$dir/classes/spark:$home/spark-peer/target/classes"
quiet=(-Dlogback.configurationFile="$home/bench/logback-quiet.xml" -Djdk.attach.allowAttachSelf=true
  -Djol.skipHotspotSAAttach=true)
# What Spark 3.5 needs opened on Java 17 (as src-it's SparkPeer starts the peer).
spark_flags=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)
tsd_plan=io.huditsd.executors.clustering.JavaBinaryCopyClusteringPlanStrategy
tsd_exec=io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy
java_plan=org.apache.hudi.client.clustering.plan.strategy.JavaSizeBasedClusteringPlanStrategy
java_exec=org.apache.hudi.client.clustering.run.strategy.JavaSortAndSizeExecutionStrategy
spark_plan=org.apache.hudi.client.clustering.plan.strategy.SparkStreamCopyClusteringPlanStrategy
spark_exec=org.apache.hudi.client.clustering.run.strategy.SparkStreamCopyClusteringExecutionStrategy
# The files' codec: with any other, a binary copy decompresses and recompresses every page.
codec=hoodie.parquet.compression.codec=gzip
expected_rows=$((commits * rows_per_commit))

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }
load() { cut -d' ' -f1 /proc/loadavg; }
# One key of a "@@result k=v ..." line.
field() { { grep -s '^@@result' "$1" || true; } | tail -1 | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
seconds() { if [[ "$1" =~ ^[0-9]+$ ]]; then awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; else echo "${1:-NA}"; fi; }
# From -Xlog:gc, MiB: the largest heap in use when a collection started, the largest left after one, and the largest
# left after one during the window FROM-TO (JVM uptime, ms; "-" when no collection fell in it).
gc_peaks() { # file [from-to]
  awk -v window="${2:-}" '
    function mib(v) { u = substr(v, length(v)); n = substr(v, 1, length(v) - 1) + 0
      return u == "G" ? n * 1024 : u == "K" ? n / 1024 : n }
    BEGIN { split(window, w, "-") }
    match($0, /[0-9]+[KMG]->[0-9]+[KMG]\(/) {
      s = substr($0, RSTART, RLENGTH - 1); split(s, p, "->"); b = mib(p[1]); a = mib(p[2]); n++
      if (b > before) before = b; if (a > after) after = a
      t = substr($1, 2) * 1000
      if (window != "" && t >= w[1] && t <= w[2]) { m++; if (a > during) during = a } }
    END { if (n == 0) print "- - -"; else printf "%d %d %s\n", before, after, (m ? sprintf("%d", during) : "-") }' \
    "$1" 2>/dev/null || echo "NA NA NA"
}

if [ ! -f "$jar" ] || [ ! -f "$peer_classpath_file" ]; then
  log "building hudi-tsd and the spark-peer module (mvn -DskipTests package)"
  (cd "$home" && mvn -B -q -DskipTests package -pl api -am && mvn -B -q -DskipTests package -f spark-peer/pom.xml)
fi
spark_classpath="$spark_classpath:$(cat "$peer_classpath_file")"

mkdir -p "$dir"
source_table="$dir/source-${commits}x${rows_per_commit}"
if [ ! -f "$source_table/.built" ]; then
  log "building the source table ($commits commits of $rows_per_commit rows) in $source_table"
  rm -rf "$source_table"
  java -Xmx"$heap" "${quiet[@]}" -cp "$jar:$home/api/target/lib/*" "$home/bench/BinaryCopyTable.java" \
    "$source_table" "$commits" "$rows_per_commit" 2>"$dir/source.log"
  touch "$source_table/.built"
fi
source_files=$(find "$source_table" -path "$source_table/.hoodie" -prune -o -name '*.parquet' -print | wc -l)
source_bytes=$(find "$source_table" -path "$source_table/.hoodie" -prune -o -name '*.parquet' -printf '%s\n' \
  | awk '{ s += $1 } END { print s }')
log "source table: $source_files base files, $((source_bytes / 1000000)) MB"

log "compiling the benchmark programs"
rm -rf "$dir/classes" "$dir/runs" "$dir/logs"
mkdir -p "$dir/classes/java" "$dir/classes/spark" "$dir/runs" "$dir/logs"
javac -nowarn -d "$dir/classes/java" -cp "$jar:$home/api/target/lib/*" "$home/bench/BinaryCopyBench.java" \
  2>&1 | grep -v '^Note:' >&2 || true
javac -nowarn -d "$dir/classes/spark" -cp "$(cat "$peer_classpath_file")" "$home/bench/SparkBinaryCopyBench.java" \
  2>&1 | grep -v '^Note:' >&2 || true

describe() { # name instant
  java -Xmx"$heap" "${quiet[@]}" -cp "$java_classpath" BinaryCopyBench describe "$dir/runs/$1" "$2" \
    >"$dir/logs/$1.describe" 2>>"$dir/logs/$1.err"
}

rows_md=()
summary=()
succeeded=()
record() { # name status jvm_ms
  local name=$1 status=$2 jvm_ms=$3 out="$dir/logs/$1.out" desc="$dir/logs/$1.describe" gc before after during
  gc=$(gc_peaks "$dir/logs/$1.gc" "$(field "$out" exec_window_ms)")
  read -r before after during <<<"$gc"
  local files_out row_groups rows files_in="" check=""
  files_out=$(field "$desc" files_out); row_groups=$(field "$desc" row_groups_out); rows=$(field "$desc" rows)
  if [ -n "$rows" ]; then
    files_in=$((source_files - ($(field "$desc" latest_files) - files_out)))
    check=$([ "$rows" -eq "$expected_rows" ] && [ "$files_out" -lt "$files_in" ] && echo ok || echo FAILED)
    # Every source file is one row group: a binary copy carries each over, a rewrite makes fewer, larger ones.
    if [[ "$name" == *copy* ]] && [ "$row_groups" -ne "$files_in" ]; then
      check="FAILED (not a binary copy: $row_groups row groups from $files_in files)"
    fi
  fi
  [ "$status" = ok ] || check="FAILED ($status, see $dir/logs/$name.err)"
  rows_md+=("| $name | $(seconds "$(field "$out" plan_ms)") | $(seconds "$(field "$out" exec_ms)") | \
$(seconds "$(field "$out" commit_ms)") | **$(seconds "$(field "$out" total_ms)")** | \
$(seconds "$(field "$out" plan_cpu_ms)") / $(seconds "$(field "$out" exec_cpu_ms)") / \
$(seconds "$(field "$out" commit_cpu_ms)") / **$(seconds "$(field "$out" total_cpu_ms)")** | $(seconds "$jvm_ms") | \
$(field "$desc" bytes_out) | ${files_in:-?} → ${files_out:-?} | ${row_groups:-?} | ${rows:-?} | \
$(field "$out" heap_pool_peaks_mib) / $before / $after / $during | $(load) | $check |")
  local total_ms exec_ms peaks total_cpu exec_cpu
  total_ms=$(field "$out" total_ms); exec_ms=$(field "$out" exec_ms); peaks=$(field "$out" heap_pool_peaks_mib)
  total_cpu=$(field "$out" total_cpu_ms); exec_cpu=$(field "$out" exec_cpu_ms)
  summary+=("$name ${total_ms:-NA} ${exec_ms:-NA} $after ${peaks:-NA} $during ${total_cpu:-NA} ${exec_cpu:-NA} $jvm_ms")
  [ "$status" = ok ] && succeeded+=("$dir/runs/$name")
  return 0
}

# A warm run first clusters another copy of the table, unmeasured, in the same JVM.
warm_up() { # name -> the JVM flag, after copying the table for it
  rm -rf "$dir/runs/$1-warmup"; cp -a "$source_table" "$dir/runs/$1-warmup"
  echo "-Dbench.warmup=$dir/runs/$1-warmup"
}

run_java() { # name xmx warm(0|1) keys...
  local name=$1 xmx=$2 warm=$3 start status=ok
  shift 3
  rm -rf "$dir/runs/$name"; cp -a "$source_table" "$dir/runs/$name"
  local flags=(-Xmx"$xmx" -Xlog:gc:file="$dir/logs/$name.gc")
  [ "$warm" = 1 ] && flags+=("$(warm_up "$name")")
  [ "$jfr" = 1 ] && flags+=(-XX:StartFlightRecording=filename="$dir/logs/$name.jfr",settings=profile)
  sync
  log "$name: clustering (-Xmx$xmx, load $(load))"
  start=$(now_ms)
  java "${flags[@]}" "${quiet[@]}" -cp "$java_classpath" \
    BinaryCopyBench cluster "$name" "$dir/runs/$name" "$codec" "$@" >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" \
    || status="exit $?"
  local jvm_ms=$(( $(now_ms) - start ))
  describe "$name" "$(field "$dir/logs/$name.out" instant)" || true
  record "$name" "$status" "$jvm_ms"
  log "$name: $(grep '^@@result' "$dir/logs/$name.out" || echo "failed, see $dir/logs/$name.err")"
}

run_spark() { # name warm(0|1)
  local name=$1 warm=$2 start status=ok
  rm -rf "$dir/runs/$name"; cp -a "$source_table" "$dir/runs/$name"
  local flags=(-Xmx"$heap" -Xlog:gc:file="$dir/logs/$name.gc")
  [ "$warm" = 1 ] && flags+=("$(warm_up "$name")")
  sync
  log "$name: clustering in Spark local[2] (-Xmx$heap, load $(load))"
  start=$(now_ms)
  java "${flags[@]}" "${spark_flags[@]}" -Dbench.spark.dir="$dir/spark" \
    -cp "$spark_classpath" SparkBinaryCopyBench cluster "$name" "$dir/runs/$name" \
    "hoodie.clustering.plan.strategy.class=$spark_plan,hoodie.clustering.execution.strategy.class=$spark_exec,$codec" \
    >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" || status="exit $?"
  local jvm_ms=$(( $(now_ms) - start ))
  describe "$name" "$(field "$dir/logs/$name.out" instant)" || true
  record "$name" "$status" "$jvm_ms"
  log "$name: $(grep '^@@result' "$dir/logs/$name.out" || echo "failed, see $dir/logs/$name.err")"
}

# `bin/tsd once --services clustering` with the daemon's binary-copy plan strategy, as an operator runs it: the whole
# process timed (JVM start, probe, poll, schedule, execute, commit, exit), after one unmeasured once of the same
# command that writes bin/tsd's class-data-sharing archive for these --services (docs/running.md), as every once
# after the first has it.
once_args=(--services clustering --hoodie-conf "hoodie.clustering.plan.strategy.class=$tsd_plan"
  --hoodie-conf "$codec" --hoodie-conf hoodie.clustering.plan.strategy.hot.commits=0
  --hoodie-conf hoodie.clustering.plan.strategy.hot.minutes=0)
cds_warmed=0
run_once() { # name [extra-jvm-flags]
  local name=$1 extra=${2:-} start status=ok
  rm -rf "$dir/runs/$name"; cp -a "$source_table" "$dir/runs/$name"
  if [ "$cds_warmed" = 0 ]; then
    warm_cds_archive "$home" "$dir" "$source_table" "${once_args[@]}"
    cds_warmed=1
  fi
  sync
  log "$name: bin/tsd once --services clustering (-Xmx$heap, load $(load))"
  start=$(now_ms)
  TSD_JAVA_OPTS="-Xmx$heap -Xlog:gc:file=$dir/logs/$name.gc $extra" /usr/bin/time -f '%e %U %S %M' -o "$dir/logs/$name.time" \
    "$home/bin/tsd" once --table "$dir/runs/$name" "${once_args[@]}" >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" \
    || status="exit $?"
  local jvm_ms=$(( $(now_ms) - start )) out="$dir/logs/$name.out" desc="$dir/logs/$name.describe"
  local instant run_ms cpu_ms copy_ms
  instant=$(grep -o 'service=clustering instant=[0-9]*' "$out" | head -1 | cut -d= -f3)
  run_ms=$(grep -o 'durationMs=[0-9]*' "$out" | head -1 | cut -d= -f2)
  cpu_ms=$(tail -1 "$dir/logs/$name.time" | awk '{ printf "%d", ($2 + $3) * 1000 }')
  # The copying phase: GroupCopier's "Copied N row groups ... in M ms", summed over the plan's groups.
  copy_ms=$(grep -o 'Copied [0-9]* row groups .* in [0-9]* ms' "$out" | sed -E 's/.* in ([0-9]+) ms$/\1/' \
    | awk '{ s += $1 } END { print (NR ? s : "NA") }')
  # Its parts besides the row groups, as the same lines give them: reading sources, page indexes and footer, column
  # statistics.
  local read_ms tail_ms stats_ms
  read_ms=$(grep -o 'reading sources [0-9]* ms' "$out" | awk '{ s += $3 } END { print (NR ? s : "NA") }')
  tail_ms=$(grep -o 'page indexes and footer [0-9]* ms' "$out" | awk '{ s += $5 } END { print (NR ? s : "NA") }')
  stats_ms=$(grep -o 'column statistics [0-9]* ms' "$out" | awk '{ s += $3 } END { print (NR ? s : "NA") }')
  describe "$name" "$instant" || true
  local files_out row_groups rows files_in="" check="" before after during
  read -r before after during <<<"$(gc_peaks "$dir/logs/$name.gc")"
  files_out=$(field "$desc" files_out); row_groups=$(field "$desc" row_groups_out); rows=$(field "$desc" rows)
  if [ -n "$rows" ]; then
    files_in=$((source_files - ($(field "$desc" latest_files) - files_out)))
    check=$([ "$rows" -eq "$expected_rows" ] && [ "$files_out" -lt "$files_in" ] && [ "$row_groups" -eq "$files_in" ] \
      && echo ok || echo FAILED)
  fi
  [ "$status" = ok ] || check="FAILED ($status, see $dir/logs/$name.err)"
  rows_md+=("| $name (whole process) | | $(seconds "$run_ms") (plan run) | | **$(seconds "$jvm_ms")** | \
/ / / **$(seconds "$cpu_ms")** | $(seconds "$jvm_ms") | $(field "$desc" bytes_out) | ${files_in:-?} → ${files_out:-?} | \
${row_groups:-?} | ${rows:-?} | - / $before / $after / - | $(load) | $check |")
  summary+=("$name $jvm_ms ${run_ms:-NA} $after NA NA $cpu_ms NA $jvm_ms $copy_ms $read_ms $tail_ms $stats_ms")
  [ "$status" = ok ] && succeeded+=("$dir/runs/$name")
  log "$name: whole process $(seconds "$jvm_ms") s, plan run $(seconds "${run_ms:-}") s, copying $copy_ms ms" \
    "(reading sources $read_ms, page indexes and footer $tail_ms, column statistics $stats_ms ms)," \
    "CPU $(seconds "$cpu_ms") s ($check)"
}

run_plain_copy() {
  local start cp_ms jvm_ms files partition
  # Listed more than once in CONTENDERS: each run copies into empty directories (Files.copy will not overwrite).
  rm -rf "$dir/runs/plain-cp" "$dir/runs/plain-java"
  mkdir -p "$dir/runs/plain-cp"
  files=$(find "$source_table" -path "$source_table/.hoodie" -prune -o -name '*.parquet' -print)
  sync
  log "plain-copy: cp of $source_files files (load $(load))"
  local cp_times cp_cpu_ms
  # shellcheck disable=SC2086
  cp_times=$( { TIMEFORMAT='%3R %3U %3S'; time cp $files "$dir/runs/plain-cp/"; } 2>&1 )
  cp_ms=$(awk '{ printf "%d", $1 * 1000 }' <<<"$cp_times")
  cp_cpu_ms=$(awk '{ printf "%d", ($2 + $3) * 1000 }' <<<"$cp_times")
  rows_md+=("| plain-copy (cp) | | $(seconds "$cp_ms") | | **$(seconds "$cp_ms")** | \
/ $(seconds "$cp_cpu_ms") / / **$(seconds "$cp_cpu_ms")** | | \
$(find "$dir/runs/plain-cp" -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s }') | $source_files → $source_files | | | | $(load) | |")
  summary+=("cp $cp_ms $cp_ms - - - $cp_cpu_ms $cp_cpu_ms")
  sync
  log "plain-copy: Files.copy in a JVM"
  start=$(now_ms)
  java -Xmx"$heap" -Xlog:gc:file="$dir/logs/plain-copy.gc" "${quiet[@]}" -cp "$java_classpath" BinaryCopyBench copy \
    "$source_table" "$dir/runs/plain-java" >"$dir/logs/plain-copy.out" 2>"$dir/logs/plain-copy.err"
  jvm_ms=$(( $(now_ms) - start ))
  local out="$dir/logs/plain-copy.out" before after during
  read -r before after during <<<"$(gc_peaks "$dir/logs/plain-copy.gc")"
  rows_md+=("| plain-copy (Files.copy) | | $(seconds "$(field "$out" exec_ms)") | | \
**$(seconds "$(field "$out" exec_ms)")** | / $(seconds "$(field "$out" exec_cpu_ms)") / / \
**$(seconds "$(field "$out" exec_cpu_ms)")** | $(seconds "$jvm_ms") | $(field "$out" bytes_out) | \
$source_files → $(field "$out" files_out) | | | $(field "$out" heap_pool_peaks_mib) / $before / $after / - | $(load) | |")
  summary+=("java-copy $(field "$out" exec_ms) $(field "$out" exec_ms) $after $(field "$out" heap_pool_peaks_mib) -\
 $(field "$out" exec_cpu_ms) $(field "$out" exec_cpu_ms)")
}

group_keys() { # bytes
  echo "hoodie.clustering.plan.strategy.max.bytes.per.group=$1" "hoodie.clustering.plan.strategy.max.num.groups=1" \
    "hoodie.clustering.plan.strategy.target.file.max.bytes=$1"
}

started=$(date -u +%Y-%m-%dT%H:%MZ)
for contender in $contenders; do
  case $contender in
    tsd-copy|tsd-copy-warm) run_java "$contender" "$heap" "$([ "$contender" = tsd-copy-warm ] && echo 1 || echo 0)" \
      "hoodie.clustering.plan.strategy.class=$tsd_plan" "hoodie.clustering.execution.strategy.class=$tsd_exec" ;;
    java-rewrite) run_java java-rewrite "$rewrite_heap" 0 "hoodie.clustering.plan.strategy.class=$java_plan" \
      "hoodie.clustering.execution.strategy.class=$java_exec" ;;
    spark-copy) run_spark spark-copy 0 ;;
    spark-copy-warm) run_spark spark-copy-warm 1 ;;
    plain-copy) run_plain_copy ;;
    tsd-once-copy) run_once tsd-once-copy ;;
    tsd-once-copy-c1) run_once tsd-once-copy-c1 -XX:TieredStopAtLevel=1 ;;
    tsd-once-copy-fullinline) run_once tsd-once-copy-fullinline "-XX:FreqInlineSize=325 -XX:InlineSmallCode=2500" ;;
    # shellcheck disable=SC2046
    tsd-copy-x) run_java tsd-copy-x "$group_heap" 0 "hoodie.clustering.plan.strategy.class=$tsd_plan" \
      "hoodie.clustering.execution.strategy.class=$tsd_exec" $(group_keys "$group_bytes") ;;
    # shellcheck disable=SC2046
    tsd-copy-2x) run_java tsd-copy-2x "$group_heap" 0 "hoodie.clustering.plan.strategy.class=$tsd_plan" \
      "hoodie.clustering.execution.strategy.class=$tsd_exec" $(group_keys $((group_bytes * 2))) ;;
    # shellcheck disable=SC2046
    tsd-copy-4x) run_java tsd-copy-4x "$group_heap" 0 "hoodie.clustering.plan.strategy.class=$tsd_plan" \
      "hoodie.clustering.execution.strategy.class=$tsd_exec" $(group_keys $((group_bytes * 4))) ;;
    *) log "unknown contender '$contender'"; exit 2 ;;
  esac
done

verified=""
if [ "$verify_spark" = 1 ]; then
  if [ ${#succeeded[@]} -gt 0 ]; then
    # A contender run several times leaves its last table only: each read once.
    mapfile -t succeeded < <(printf '%s\n' "${succeeded[@]}" | sort -u)
    log "reading ${#succeeded[@]} clustered tables back with Spark"
    java -Xmx"$heap" "${spark_flags[@]}" -Dbench.spark.dir="$dir/spark" -cp "$spark_classpath" \
      SparkBinaryCopyBench count "${succeeded[@]}" >"$dir/logs/spark-verify.out" 2>"$dir/logs/spark-verify.err" || true
    verified=$(grep '^@@result' "$dir/logs/spark-verify.out" | sed 's/^@@result //; s/ session_ms=.*//' || true)
  fi
fi

# Goals of the issue, from the summary lines: name total_ms exec_ms gc_after_mib pool_peaks_mib gc_during_mib
# total_cpu_ms exec_cpu_ms jvm_ms, and for a whole `once` its copying phase in ms (GroupCopier's log) as the tenth,
# then the copying's parts besides the row groups: reading sources, page indexes and footer, column statistics.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.1f", a / b; else print "NA" }'; }
value() { printf '%s\n' "${summary[@]}" | awk -v n="$1" -v c="$2" '$1 == n { v = $c } END { print (v == "" ? "NA" : v) }'; }
# The median of a column over every run of a contender (the mean of the middle two for an even count): a contender
# listed more than once in CONTENDERS runs alternated with the others, and one run's noise must not decide a ratio.
median() { printf '%s\n' "${summary[@]}" | awk -v n="$1" -v c="$2" '$1 == n && $c ~ /^[0-9.]+$/ { print $c }' | sort -g \
  | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
runs() { printf '%s\n' "${summary[@]}" | awk -v n="$1" '$1 == n' | wc -l; }
{
  echo "binary-copy benchmark, $started, $(nproc) cores, $(java -version 2>&1 | head -1)"
  echo "source: $source_files base files, $source_bytes bytes, $expected_rows rows; HEAP=$heap REWRITE_HEAP=$rewrite_heap GROUP_HEAP=$group_heap GROUP_BYTES=$group_bytes"
  echo
  echo "| contender | plan s | execute s | commit s | total s | CPU s: plan / execute / commit / total | JVM wall s | bytes out | files in → out | row groups out | rows | heap MiB: pool peaks / GC before / GC after / after GC in execute | load | check |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows_md[@]}"
  echo
  echo "goals (end to end = total s; in brackets the same with process CPU seconds, which load moves far less;"
  echo "  every figure the median of a contender's runs, as many as CONTENDERS lists it):"
  echo "  java-rewrite / tsd-copy:            $(ratio "$(median java-rewrite 2)" "$(median tsd-copy 2)")x" \
    "($(ratio "$(median java-rewrite 7)" "$(median tsd-copy 7)")x)  goal >= 10x"
  echo "  spark-copy / tsd-copy:              $(ratio "$(median spark-copy 2)" "$(median tsd-copy 2)")x" \
    "($(ratio "$(median spark-copy 7)" "$(median tsd-copy 7)")x)  goal >= 4x"
  echo "  whole processes: spark-copy / tsd-once-copy: $(ratio "$(median spark-copy 9)" "$(median tsd-once-copy 9)")x" \
    "($(ratio "$(median spark-copy 7)" "$(median tsd-once-copy 7)")x CPU)  goal >= 5x (issue 16);" \
    "medians of $(runs spark-copy) and $(runs tsd-once-copy) runs; the last runs alone:" \
    "$(ratio "$(value spark-copy 9)" "$(value tsd-once-copy 9)")x"
  echo "  whole process's copying / cp:       $(ratio "$(median tsd-once-copy 10)" "$(median cp 2)")x  goal <= 3x" \
    "(issue 16; copying $(median tsd-once-copy 10) ms, cp $(median cp 2) ms; medians of $(runs tsd-once-copy) and" \
    "$(runs cp) runs)"
  echo "    of the copying (medians): reading sources $(median tsd-once-copy 11) ms, page indexes and footer" \
    "$(median tsd-once-copy 12) ms, column statistics $(median tsd-once-copy 13) ms; the rest is the row groups"
  echo "  warm: java-rewrite / tsd-copy-warm: $(ratio "$(median java-rewrite 2)" "$(median tsd-copy-warm 2)")x" \
    "($(ratio "$(median java-rewrite 7)" "$(median tsd-copy-warm 7)")x)"
  echo "  warm: spark-copy-warm / tsd-copy-warm: $(ratio "$(median spark-copy-warm 2)" "$(median tsd-copy-warm 2)")x" \
    "($(ratio "$(median spark-copy-warm 7)" "$(median tsd-copy-warm 7)")x)"
  echo "  tsd-copy execute / cp:              $(ratio "$(median tsd-copy 3)" "$(median cp 2)")x" \
    "($(ratio "$(median tsd-copy 8)" "$(median cp 7)")x)  goal <= 3x;" \
    "/ Files.copy: $(ratio "$(median tsd-copy 3)" "$(median java-copy 2)")x"
  echo "  warm: tsd-copy-warm execute / cp:   $(ratio "$(median tsd-copy-warm 3)" "$(median cp 2)")x" \
    "($(ratio "$(median tsd-copy-warm 8)" "$(median cp 7)")x);" \
    "/ Files.copy: $(ratio "$(median tsd-copy-warm 3)" "$(median java-copy 2)")x"
  echo "  heap, group X -> 2X -> 4X (-Xmx$group_heap; goal: flat):"
  echo "    largest left after a GC during execute: $(value tsd-copy-x 6) -> $(value tsd-copy-2x 6) -> $(value tsd-copy-4x 6) MiB"
  echo "    largest left after any GC:              $(value tsd-copy-x 4) -> $(value tsd-copy-2x 4) -> $(value tsd-copy-4x 4) MiB"
  echo "    sum of the pools' peaks:                $(value tsd-copy-x 5) -> $(value tsd-copy-2x 5) -> $(value tsd-copy-4x 5) MiB"
  if [ -n "$verified" ]; then
    echo
    echo "read back with Spark (hudi-spark3.5-bundle 1.2.0):"
    sed 's/^/  /' <<<"$verified"
  fi
} | tee "$dir/results.md"
