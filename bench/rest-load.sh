#!/usr/bin/env bash
# REST load benchmark: a real daemon servicing a MOR table that a writer keeps upserting into (compactions, cleans
# and archives run meanwhile), and CLIENTS concurrent clients sending GETs on loopback for SECONDS.
# Usage: bench/rest-load.sh [CLIENTS=50] [SECONDS=30]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -DskipTests install -pl api -am
mvn -B -q -pl api dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt
exec java -Xmx2g -Djava.util.concurrent.ForkJoinPool.common.parallelism=8 -cp "api/target/test-classes:api/target/classes:$(cat api/target/bench-classpath.txt)" \
  io.huditsd.api.RestLoadBenchmark "${1:-50}" "${2:-30}"
