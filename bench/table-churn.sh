#!/usr/bin/env bash
# Tables that come and go leave nothing behind: one daemon (not started: no polls or runs, the parts and their
# registry wiring only) registers TABLES tables, has each plan (a schedule request, which takes the table's planning
# lock), end a run and take a lock, removes them all, and prints the live heap after a full GC; ROUNDS times, in one
# process. Flat heap and zeros in the per-table columns are a pass. Not part of `mvn verify`.
#
#   bench/table-churn.sh                 # 1,000 tables, 5 rounds
#   TABLES=10000 ROUNDS=10 bench/table-churn.sh
#
# Runs this tree's compiled classes (target/classes of each module, built first with
# `mvn -o -q -pl lock-providers,executors,scheduler,api compile`) ahead of the dependencies of the api module.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tables=${TABLES:-1000}
rounds=${ROUNDS:-5}
classpath_file=${BENCH_CLASSPATH:-/tmp/hudi-tsd-table-churn.classpath}

for module in lock-providers executors scheduler api; do
  [ -d "$home/$module/target/classes" ] || { echo "compile first: mvn -o -q -pl $module compile" >&2; exit 1; }
done
(cd "$home" && mvn -B -q -o -pl api dependency:build-classpath -Dmdep.outputFile="$classpath_file" >/dev/null)
classes="$home/lock-providers/target/classes:$home/executors/target/classes"
classes="$classes:$home/scheduler/target/classes:$home/api/target/classes"
# Compiled apart, not run as a source file, so that the measured JVM does not also hold the source launcher's compiler.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -d "$out" -cp "$classes:$(cat "$classpath_file")" "$home/bench/TableChurn.java"
java -Xmx512m -Dlogback.configurationFile="$home/bench/logback-quiet.xml" \
  -cp "$out:$classes:$(cat "$classpath_file")" TableChurn "$tables" "$rounds"
