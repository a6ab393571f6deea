#!/usr/bin/env bash
# Compaction benchmark (issue 16): `bin/tsd once` against Hudi's plain Java engine client and Hudi on Spark local[2]
# (official hudi-spark3.5-bundle 1.2.0) on identical copies of one MERGE_ON_READ table, each a whole process, in one
# run, printing times and ratios. Not part of `mvn verify`. About 3-4 minutes with the default contenders once the
# source table exists (building it takes ~1 minute; it is kept in BENCH_DIR).
#
#   bench/compaction.sh
#   CONTENDERS="tsd tsd-pool1 java-minimal java-daemon" bench/compaction.sh
#   ROWS=20000 UPDATED=6000 BASE_FILES=4 TABLE_VERSION=6 bench/compaction.sh     # a small table at version 6
#
# Environment (defaults in brackets):
#   BENCH_DIR      working directory; source tables are kept, runs/ and logs/ are wiped [/tmp/hudi-tsd-bench-compaction]
#   ROWS, UPDATED, BASE_FILES, TABLE_VERSION  the source table (bench/CompactionTable.java): BASE_FILES inserts of
#                  ROWS/BASE_FILES keys, then 3 upserts of UPDATED/3 distinct keys (14 base + 37 log files at the
#                  defaults)                                                             [200000 60000 14 9]
#   HEAP           -Xmx of every JVM                                                     [2g]
#   CONTENDERS     in this order [tsd java-minimal java-daemon spark plain-copy]
#     tsd                    bin/tsd once --table COPY --services compaction (schedule, execute, commit, exit)
#     tsd-nocds              the same with TSD_CDS=off (no class-data-sharing archive; see docs/running.md)
#     tsd-fullinline         the same with the JVM's own C2 inlining limits, which bin/tsd lowers for a once
#                            (-XX:FreqInlineSize=325 -XX:InlineSmallCode=2500)
#     tsd-pool1, tsd-pool2   the same with -Djava.util.concurrent.ForkJoinPool.common.parallelism=1 / 2 (the
#                            daemon widens Hudi's common pool to max(8, 4 x cores) when the JVM is given none)
#     tsd-warnlog            the same with -Dlogback.configurationFile=bench/logback-warn.xml in TSD_JAVA_OPTS: the
#                            root logger at WARN (plain `once` leaves it at logback's default DEBUG, see that file)
#     tsd-warnlog-pool1      both: root logger at WARN and common-pool parallelism 1
#     tsd-timeline           the same through CompactionBench once: Hudi's INFO lines with time and thread in
#                            logs/tsd-timeline.timeline (the phase timeline, the counts of meta clients / views)
#     java-minimal           HoodieJavaWriteClient scheduleCompaction + compact(instant, true), minimal config
#     java-daemon            the same with exactly the daemon's write config (HudiTables.writeConfig)
#     java-daemon-pool8      java-daemon with the daemon's widened common pool (parallelism 8)
#     java-daemon-nostream   java-daemon with hoodie.metadata.streaming.write.enabled=false
#     java-daemon-single     java-daemon with hoodie.write.concurrency.mode=SINGLE_WRITER (no table lock)
#     java-daemon-inproc     java-daemon with the InProcessLockProvider instead of the daemon's fenced storage lock
#     java-daemon-hb1s       java-daemon with hoodie.client.heartbeat.interval_in_ms=1000
#     java-daemon-buf1m      java-daemon with hoodie.memory.dfs.buffer.max.size=1048576 (default 16 MiB: every log
#                            file Hudi opens allocates a 16 MiB read buffer)
#     java-daemon-tlmarkers  java-daemon with hoodie.write.markers.type=TIMELINE_SERVER_BASED (Hudi falls back to
#                            DIRECT without the embedded timeline server; expected: no change)
#     spark                  CALL run_compaction(op => 'scheduleAndExecute') in Spark local[2]
#     plain-copy             cp of the table's data files (the floor for touching the same bytes)
#   JFR            1: a Java Flight Recording (settings=profile) of each tsd* and java* contender in logs/NAME.jfr [0]
#   VERIFY_SPARK   1: read every compacted copy back with Spark (snapshot and read_optimized must agree) [1]
#
# Every contender runs under /usr/bin/time: wall seconds, CPU seconds (user + sys, every thread), peak RSS. The load
# average is printed with every row: the machine is shared, so compare ratios within one run and CPU seconds.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$home/bench/warm-cds.sh"
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench-compaction}
rows=${ROWS:-200000}
updated=${UPDATED:-60000}
base_files=${BASE_FILES:-14}
version=${TABLE_VERSION:-9}
heap=${HEAP:-2g}
contenders=${CONTENDERS:-tsd java-minimal java-daemon spark plain-copy}
jfr=${JFR:-0}
verify_spark=${VERIFY_SPARK:-1}
jar="$home/api/target/hudi-tsd.jar"
peer_classpath_file="$home/spark-peer/target/spark-peer.classpath"
java_classpath="$dir/classes/java:$jar:$home/api/target/lib/*"
pool=java.util.concurrent.ForkJoinPool.common.parallelism
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

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }
field() { { grep -s "^$3" "$1" || true; } | tail -1 | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
seconds() { if [[ "${1:-}" =~ ^[0-9]+$ ]]; then awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; else echo "${1:-}"; fi; }

if [ ! -f "$jar" ]; then
  log "building hudi-tsd (mvn -DskipTests package -pl api -am)"
  (cd "$home" && mvn -B -q -DskipTests package -pl api -am)
fi
if [[ " $contenders " == *" spark "* || "$verify_spark" = 1 ]] && [ ! -f "$peer_classpath_file" ]; then
  log "building the spark-peer module"
  (cd "$home" && mvn -B -q -DskipTests package -f spark-peer/pom.xml)
fi

mkdir -p "$dir"
source_table="$dir/source-${rows}-${updated}-${base_files}-v${version}"
if [ ! -f "$source_table/.built" ]; then
  log "building the source table in $source_table"
  rm -rf "$source_table"
  java -Xmx"$heap" "${quiet[@]}" -cp "$jar:$home/api/target/lib/*" "$home/bench/CompactionTable.java" \
    "$source_table" "$rows" "$updated" "$base_files" "$version" 2>"$dir/source.log"
  touch "$source_table/.built"
fi
data_files() { find "$1" -path "$1/.hoodie" -prune -o -type f ! -name '.*.crc' ! -name '.hoodie_partition_metadata' -print; }
base_count=$(data_files "$source_table" | grep -c '\.parquet$' || true)
log_count=$(data_files "$source_table" | grep -c '\.log\.' || true)
source_bytes=$(data_files "$source_table" | xargs stat -c %s | awk '{ s += $1 } END { print s }')
log "source table: $base_count base + $log_count log files, $((source_bytes / 1000)) kB, version $version"

rm -rf "$dir/classes" "$dir/runs" "$dir/logs"
mkdir -p "$dir/classes/java" "$dir/classes/spark" "$dir/runs" "$dir/logs"
javac -nowarn -d "$dir/classes/java" -cp "$jar:$home/api/target/lib/*" "$home/bench/CompactionBench.java" \
  2>&1 | grep -v '^Note:' >&2 || true
if [ -f "$peer_classpath_file" ]; then
  spark_classpath="$dir/classes/spark:$(cat "$peer_classpath_file")"
  javac -nowarn -d "$dir/classes/spark" -cp "$(cat "$peer_classpath_file")" "$home/bench/SparkCompactionBench.java" \
    2>&1 | grep -v '^Note:' >&2 || true
fi

rows_md=()
summary=()
succeeded=()
# Runs one contender under /usr/bin/time on a fresh copy of the source table: NAME DETAIL COMMAND...
contend() {
  local name=$1 detail=$2 status=ok before
  shift 2
  rm -rf "$dir/runs/$name"; cp -a "$source_table" "$dir/runs/$name"
  sync
  before=$(load)
  log "$name (load $before)"
  /usr/bin/time -f '%e %U %S %M' -o "$dir/logs/$name.time" "$@" >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" \
    || status="exit $?"
  local wall cpu rss
  read -r wall user sys rss <"$dir/logs/$name.time" || true
  wall=$(tail -1 "$dir/logs/$name.time" | awk '{ print $1 }')
  cpu=$(tail -1 "$dir/logs/$name.time" | awk '{ printf "%.2f", $2 + $3 }')
  rss=$(tail -1 "$dir/logs/$name.time" | awk '{ printf "%d", $4 / 1024 }')
  local inner
  inner=$(eval "$detail")
  [ "$status" = ok ] && succeeded+=("$dir/runs/$name")
  rows_md+=("| $name | **$wall** | $cpu | $rss | $inner | $before | $status |")
  summary+=("$name $wall $cpu")
  log "$name: wall ${wall}s cpu ${cpu}s rss ${rss}MiB $inner ($status)"
}
gc_flags() { # name
  local flags=(-Xmx"$heap" -Xlog:gc:file="$dir/logs/$1.gc")
  [ "$jfr" = 1 ] && flags+=(-XX:StartFlightRecording=filename="$dir/logs/$1.jfr",settings=profile)
  echo "${flags[*]}"
}
tsd_detail='echo "plan run $(seconds "$(grep -o "durationMs=[0-9]*" "$dir/logs/$name.out" | head -1 | cut -d= -f2)") s (Started..Finished)"'
java_detail='echo "config $(seconds "$(field "$dir/logs/$name.out" config_ms @@result)") / schedule $(seconds "$(field "$dir/logs/$name.out" schedule_ms @@result)") / compact+commit $(seconds "$(field "$dir/logs/$name.out" compact_ms @@result)") s"'

run_tsd() { # name extra-jvm-flags...
  local name=$1
  shift
  # shellcheck disable=SC2046
  TSD_JAVA_OPTS="$(gc_flags "$name") $*" contend "$name" "$tsd_detail" \
    "$home/bin/tsd" once --table "$dir/runs/$name" --services compaction
}
run_java() { # name mode jvm-flags -- keys...
  local name=$1 mode=$2 flags=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2046
  contend "$name" "$java_detail" java $(gc_flags "$name") "${flags[@]}" "${quiet[@]}" -cp "$java_classpath" \
    CompactionBench compact "$name" "$dir/runs/$name" "$mode" "$@"
}

# bin/tsd writes its class-data-sharing archive at the first `once` of a build and --services (see docs/running.md): one
# unmeasured compaction first, so that the tsd contenders start as a user's every later run does (tsd-nocds: without
# the archive).
if [[ " $contenders " == *" tsd"* ]]; then
  warm_cds_archive "$home" "$dir" "$source_table" --services compaction
fi

started=$(date -u +%Y-%m-%dT%H:%MZ)
for contender in $contenders; do
  case $contender in
    tsd) run_tsd tsd ;;
    tsd-nocds) TSD_CDS=off run_tsd tsd-nocds ;;
    tsd-c1) run_tsd tsd-c1 -XX:TieredStopAtLevel=1 ;;
    tsd-fullinline) run_tsd tsd-fullinline -XX:FreqInlineSize=325 -XX:InlineSmallCode=2500 ;;
    tsd-lazyc2) run_tsd tsd-lazyc2 -XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 \
      -XX:Tier4CompileThreshold=60000 -XX:Tier4BackEdgeThreshold=400000 ;;
    tsd-pool1) run_tsd tsd-pool1 "-D$pool=1" ;;
    tsd-pool2) run_tsd tsd-pool2 "-D$pool=2" ;;
    tsd-warnlog) run_tsd tsd-warnlog "-Dlogback.configurationFile=$home/bench/logback-warn.xml" ;;
    tsd-warnlog-pool1) run_tsd tsd-warnlog-pool1 "-Dlogback.configurationFile=$home/bench/logback-warn.xml" "-D$pool=1" ;;
    tsd-timeline)
      # shellcheck disable=SC2046
      contend tsd-timeline "$tsd_detail" java $(gc_flags tsd-timeline) -Djdk.attach.allowAttachSelf=true \
        -Djol.skipHotspotSAAttach=true -Dbench.timeline="$dir/logs/tsd-timeline.timeline" -cp "$java_classpath" \
        CompactionBench once --table "$dir/runs/tsd-timeline" --services compaction ;;
    java-minimal) run_java java-minimal minimal ;;
    java-daemon) run_java java-daemon daemon ;;
    java-daemon-pool8) run_java java-daemon-pool8 daemon "-D$pool=8" ;;
    java-daemon-nostream) run_java java-daemon-nostream daemon -- hoodie.metadata.streaming.write.enabled=false ;;
    java-daemon-single) run_java java-daemon-single daemon -- hoodie.write.concurrency.mode=SINGLE_WRITER ;;
    java-daemon-inproc) run_java java-daemon-inproc daemon -- \
      hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider ;;
    java-daemon-hb1s) run_java java-daemon-hb1s daemon -- hoodie.client.heartbeat.interval_in_ms=1000 ;;
    java-daemon-buf1m) run_java java-daemon-buf1m daemon -- hoodie.memory.dfs.buffer.max.size=1048576 ;;
    java-daemon-tlmarkers) run_java java-daemon-tlmarkers daemon -- hoodie.write.markers.type=TIMELINE_SERVER_BASED ;;
    spark)
      if [ -z "${spark_classpath:-}" ]; then log "spark: no spark-peer class path, skipped"; continue; fi
      contend spark 'echo "session $(seconds "$(field "$dir/logs/spark.out" session_ms @@result)") / CALL $(seconds "$(field "$dir/logs/spark.out" total_ms @@result)") s"' \
        java -Xmx"$heap" -Xlog:gc:file="$dir/logs/spark.gc" "${spark_flags[@]}" -Dbench.spark.dir="$dir/spark" \
        -cp "$spark_classpath" SparkCompactionBench compact spark "$dir/runs/spark" ;;
    plain-copy)
      mkdir -p "$dir/runs/plain-copy-out"
      sync
      before=$(load)
      # shellcheck disable=SC2046
      /usr/bin/time -f '%e %U %S %M' -o "$dir/logs/plain-copy.time" cp $(data_files "$source_table") \
        "$dir/runs/plain-copy-out/"
      rows_md+=("| plain-copy (cp of the data files) | **$(awk '{ print $1 }' "$dir/logs/plain-copy.time")** | $(awk '{ printf "%.2f", $2 + $3 }' "$dir/logs/plain-copy.time") | | | $before | ok |")
      summary+=("plain-copy $(awk '{ print $1 }' "$dir/logs/plain-copy.time") $(awk '{ printf "%.2f", $2 + $3 }' "$dir/logs/plain-copy.time")") ;;
    *) log "unknown contender '$contender'"; exit 2 ;;
  esac
done

verified=""
if [ "$verify_spark" = 1 ] && [ ${#succeeded[@]} -gt 0 ] && [ -n "${spark_classpath:-}" ]; then
  log "reading ${#succeeded[@]} compacted tables back with Spark"
  java -Xmx"$heap" "${spark_flags[@]}" -Dbench.spark.dir="$dir/spark" -cp "$spark_classpath" \
    SparkCompactionBench count "${succeeded[@]}" >"$dir/logs/spark-verify.out" 2>"$dir/logs/spark-verify.err" || true
  verified=$(grep '^@@result' "$dir/logs/spark-verify.out" | sed "s|^@@result path=$dir/runs/||" || true)
fi

value() { printf '%s\n' "${summary[@]}" | awk -v n="$1" -v c="$2" '$1 == n { v = $c } END { print (v == "" ? "NA" : v) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "NA" }'; }
{
  echo "compaction benchmark, $started, $(nproc) cores, $(java -version 2>&1 | head -1), load at start $(load)"
  echo "source: $base_count base + $log_count log files, $source_bytes bytes, $rows rows ($updated updated), table version $version; HEAP=$heap"
  echo
  echo "| contender | wall s | CPU s | peak RSS MiB | phases | load before | status |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows_md[@]}"
  echo
  echo "ratios (wall; CPU in brackets):"
  for other in spark java-minimal java-daemon tsd-pool1 tsd-warnlog tsd-warnlog-pool1; do
    [ "$(value "$other" 2)" = NA ] && continue
    echo "  $other / tsd: $(ratio "$(value "$other" 2)" "$(value tsd 2)")x ($(ratio "$(value "$other" 3)" "$(value tsd 3)")x)"
  done
  for best in tsd-warnlog tsd-warnlog-pool1; do
    [ "$(value "$best" 2)" = NA ] && continue
    echo "  spark / $best: $(ratio "$(value spark 2)" "$(value "$best" 2)")x ($(ratio "$(value spark 3)" "$(value "$best" 3)")x);" \
      "java-minimal / $best: $(ratio "$(value java-minimal 2)" "$(value "$best" 2)")x ($(ratio "$(value java-minimal 3)" "$(value "$best" 3)")x)"
  done
  echo "  goals: spark / tsd >= 2; tsd's plan run no slower than java-minimal's compact+commit"
  if [ -n "$verified" ]; then
    echo
    echo "read back with Spark (expected: snapshot_rows = distinct_keys = ro_rows = $((rows / base_files * base_files)) and ro_sum = snapshot_sum):"
    sed 's/^/  /' <<<"$verified"
  fi
} | tee "$dir/results.md"
