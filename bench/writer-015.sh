#!/usr/bin/env bash
# A real Hudi 0.15.0 Spark writer and the daemon on one table (not part of CI nor of `mvn verify`): the official
# hudi-spark3.5-bundle_2.12:0.15.0 in Spark 3.5.5 local[2] (bench/Writer015.java) writes a MERGE_ON_READ table at
# 0.15's default table version 6 with its own table services off, `bin/tsd once` compacts, cleans and archives it
# between rounds, and then the same writer turns its inline clean and archival on: its archiver reads every clean
# the daemon left on the timeline (Hudi 0.15 reads a clean's .clean.inflight as an Avro cleaner plan, which Hudi
# 1.2.0 leaves empty on version-6 timelines: executors/CleanInflightPlans.java). Every batch must commit, the table
# read back must equal the model (the last value per key), the table must still be version 6, and at least one of
# the daemon's cleans must have been archived by the 0.15 writer (else nothing was proven). About 4-5 minutes on 2
# cores. Last line: `writer-015: PASS ...` or `writer-015: FAIL <reason>` (exit 1).
#
#   bench/writer-015.sh
#   EMPTY_INFLIGHT=1 bench/writer-015.sh    # without the fix: the daemon's .clean.inflight files (table and metadata
#                                           # table) truncated to 0 bytes, as Hudi 1.2.0 leaves them, before the
#                                           # writer's archival phase; expected: FAIL with 0.15's "Not an Avro data file"
#   EMPTY_INFLIGHT=repair bench/writer-015.sh  # the same, then one more `once` (a fixed daemon's first pass over a
#                                              # table an older one serviced) before the writer; expected: PASS
#
# Environment (defaults in brackets):
#   BENCH_DIR   working directory, wiped at start                                 [/tmp/hudi-tsd-bench-writer-015]
#   HEAP        -Xmx of every JVM                                                 [2g]
#   INSERTS     new keys per round (each round also updates a quarter of the earlier keys)      [300]
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_DIR:-/tmp/hudi-tsd-bench-writer-015}
heap=${HEAP:-2g}
inserts=${INSERTS:-300}
empty_inflight=${EMPTY_INFLIGHT:-0}
jar="$home/api/target/hudi-tsd.jar"
peer_classpath_file="$home/spark-peer/target/spark-peer.classpath"
bundles="$HOME/.m2/repository/org/apache/hudi/hudi-spark3.5-bundle_2.12"
bundle_015="$bundles/0.15.0/hudi-spark3.5-bundle_2.12-0.15.0.jar"
table="$dir/table"
spark_flags=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true
  -Djdk.attach.allowAttachSelf=true -Djol.skipHotspotSAAttach=true)
# The daemon's keys: a compaction after every delta commit, cleans that keep only the latest commit's slices, and an
# archiver that keeps 2 to 3 instants of a kind (the writer's are the same, bench/Writer015.java), so that cleans
# become old enough to be archived within a few rounds; the metadata table compacts (and then cleans) every 2 delta
# commits, so that the daemon leaves cleans on the metadata table's timeline too.
once_args=(--services compaction,clean,archive --hoodie-conf hoodie.compact.inline.max.delta.commits=1
  --hoodie-conf hoodie.clean.commits.retained=1 --hoodie-conf hoodie.keep.min.commits=2
  --hoodie-conf hoodie.keep.max.commits=3 --hoodie-conf hoodie.metadata.compact.max.delta.commits=2)

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { echo "writer-015: FAIL $*"; exit 1; }

# Builds with `package`, never `install`: bin/tsd builds (and installs) only when its jar is missing or stale.
if [ ! -f "$jar" ]; then
  log "building hudi-tsd (mvn -DskipTests package -pl api -am)"
  (cd "$home" && mvn -B -q -DskipTests package -pl api -am) && touch "$jar"
fi
if [ ! -f "$peer_classpath_file" ]; then
  log "building the spark-peer module"
  (cd "$home" && mvn -B -q -DskipTests package -f spark-peer/pom.xml)
fi
if [ ! -f "$bundle_015" ]; then
  log "resolving org.apache.hudi:hudi-spark3.5-bundle_2.12:0.15.0 from Maven Central"
  mvn -B -q dependency:get -Dartifact=org.apache.hudi:hudi-spark3.5-bundle_2.12:0.15.0 -Dtransitive=false
fi
# The peer's class path (Spark 3.5.5 and what it brings) with the 0.15.0 bundle in place of the 1.2.0 one.
peer_classpath=$(cat "$peer_classpath_file")
[[ "$peer_classpath" == *"hudi-spark3.5-bundle_2.12-1.2.0.jar"* ]] \
  || fail "no hudi-spark3.5-bundle_2.12-1.2.0.jar on $peer_classpath_file to replace"
classpath_015=$(tr ':' '\n' <<<"$peer_classpath" | sed "s|.*/hudi-spark3.5-bundle_2.12-1.2.0.jar$|$bundle_015|" | paste -sd:)

rm -rf "$dir"
mkdir -p "$dir/classes" "$dir/logs"
javac -nowarn -d "$dir/classes" -cp "$classpath_015" "$home/bench/Writer015.java" 2>&1 | grep -v '^Note:' >&2 || true

writer_runs=0
# writer NAME FIRST LAST services=off|on [verify]: one 0.15 Spark session writing rounds FIRST..LAST.
writer() {
  local name=$1
  shift
  writer_runs=$((writer_runs + 1))
  log "0.15 writer $name: rounds $1..$2 $3 ${4:-} (load $(cut -d' ' -f1 /proc/loadavg))"
  local status=0
  java -Xmx"$heap" "${spark_flags[@]}" -Dwriter015.inserts="$inserts" -Dbench.spark.dir="$dir/spark" \
    -cp "$dir/classes:$classpath_015" Writer015 write "$table" "$@" >"$dir/logs/$name.out" 2>"$dir/logs/$name.err" \
    || status=$?
  if [ "$status" != 0 ]; then
    grep '^@@' "$dir/logs/$name.out" >&2 || true
    echo "--- $dir/logs/$name.err (Hudi's exceptions, first lines):" >&2
    grep -E '^(Exception|Caused by|[a-zA-Z.]+Exception)|^\s+at org\.apache\.hudi' "$dir/logs/$name.err" | head -40 >&2 || true
    fail "0.15 writer $name (exit $status): $(grep -h '^@@error\|^@@result verify' "$dir/logs/$name.out" | tail -1)"
  fi
  grep '^@@' "$dir/logs/$name.out" | sed "s/^/  /" >&2
}
# once NAME: one `bin/tsd once` pass over the table.
once() {
  log "bin/tsd once $1 (load $(cut -d' ' -f1 /proc/loadavg))"
  local status=0
  TSD_JAVA_OPTS="-Xmx$heap" "$home/bin/tsd" once --table "$table" "${once_args[@]}" \
    >"$dir/logs/$1.out" 2>"$dir/logs/$1.err" || status=$?
  grep -E '^(table=|Serviced|Nothing)' "$dir/logs/$1.out" | sed "s/^/  /" >&2 || true
  [ "$status" = 0 ] || fail "bin/tsd once $1 failed (exit $status): see $dir/logs/$1.err"
  # Every clean the daemon's passes left on the table's timeline, to tell later which ones it archived itself.
  cleans "$table/.hoodie" >>"$dir/seen-cleans"
}
# Completed cleans of a timeline folder, one instant time a line.
cleans() { find "$1" -maxdepth 1 -name '*.clean' -printf '%f\n' 2>/dev/null | sed 's/\.clean$//' | sort; }
version() { sed -n 's/^hoodie.table.version=//p' "$table/.hoodie/hoodie.properties"; }

started=$(date -u +%Y-%m-%dT%H:%MZ)
# Phases 1-4: the 0.15 writer creates the table and writes with its services off; the daemon services it in between.
writer phase1 0 2 services=off
[ "$(version)" = 6 ] || fail "the 0.15 writer created table version $(version), expected 6"
if find "$table/.hoodie" -maxdepth 1 -name '*.commit' | grep -q .; then
  fail "the 0.15 writer compacted with its services off: $(find "$table/.hoodie" -maxdepth 1 -name '*.commit')"
fi
once once1
# A pass cleans what the compaction of the pass before left (its clean is planned before its compaction commits):
# four passes leave three cleans, one more than the archiver keeps (hoodie.keep.min.commits=2).
for phase in 2 3 4; do
  writer "phase$phase" $((phase * 2 - 1)) $((phase * 2)) services=off
  once "once$phase"
done

daemon_cleans=$(cleans "$table/.hoodie")
self_archived=$(sort -u "$dir/seen-cleans" | comm -23 - <(echo "$daemon_cleans") | grep -c . || true)
daemon_md_cleans=$(cleans "$table/.hoodie/metadata/.hoodie")
[ -n "$daemon_cleans" ] || fail "the daemon ran no clean on the table: see $dir/logs/once*.out"
log "cleans on the timeline after the daemon's passes: table $(wc -w <<<"$daemon_cleans") ($(paste -sd' ' <<<"$daemon_cleans"); $self_archived more archived by the daemon itself), metadata table $(wc -w <<<"$daemon_md_cleans")"
for instant in $daemon_cleans; do
  [ -s "$table/.hoodie/$instant.clean.inflight" ] \
    || fail "the daemon left $table/.hoodie/$instant.clean.inflight empty (or missing)"
done
for instant in $daemon_md_cleans; do
  [ -s "$table/.hoodie/metadata/.hoodie/$instant.clean.inflight" ] \
    || fail "the daemon left the metadata table's $instant.clean.inflight empty (or missing)"
done
if [ "$empty_inflight" != 0 ]; then
  log "EMPTY_INFLIGHT=$empty_inflight: truncating the daemon's .clean.inflight files to 0 bytes, as Hudi 1.2.0 left them"
  for instant in $daemon_cleans; do : >"$table/.hoodie/$instant.clean.inflight"; done
  for instant in $daemon_md_cleans; do : >"$table/.hoodie/metadata/.hoodie/$instant.clean.inflight"; done
  if [ "$empty_inflight" = repair ]; then
    # A pass of the fixed daemon over a table an older daemon serviced: its first poll rewrites the empty files.
    once once5
    for instant in $daemon_cleans; do
      [ -s "$table/.hoodie/$instant.clean.inflight" ] || fail "once5 left $instant.clean.inflight empty"
    done
  fi
fi

# Phase 5: the same writer with its own inline clean and archival on; its archiver reaches the daemon's cleans.
last=14
writer phase5 9 "$last" services=on verify
rows=$(sed -n 's/^@@result verify rows=\([0-9]*\).*/\1/p' "$dir/logs/phase5.out")
[ "$(version)" = 6 ] || fail "hoodie.table.version is $(version) after the writer's rounds, expected 6"
still=$(cleans "$table/.hoodie")
archived=$(comm -23 <(echo "$daemon_cleans") <(echo "$still") | grep -c . || true)
md_still=$(cleans "$table/.hoodie/metadata/.hoodie")
md_archived=$(comm -23 <(echo "$daemon_md_cleans") <(echo "$md_still") | grep -c . || true)
writer_cleans=$(comm -13 <(echo "$daemon_cleans") <(echo "$still") | grep -c . || true)
log "the daemon's cleans archived by the 0.15 writer: table $archived of $(wc -w <<<"$daemon_cleans"), metadata table $md_archived of $(wc -w <<<"$daemon_md_cleans"); the writer's own cleans on the timeline: $writer_cleans"
[ "$archived" -gt 0 ] || fail "the 0.15 writer's archiver archived none of the daemon's cleans ($(paste -sd' ' <<<"$daemon_cleans")): nothing was proven"
echo "writer-015 $started: $((last + 1)) rounds in $writer_runs writer sessions, 4 daemon passes, table version $(version)"
echo "writer-015: PASS rounds=$((last + 1)) archived_cleans=$archived metadata_archived_cleans=$md_archived daemon_self_archived_cleans=$self_archived rows=$rows"
