#!/usr/bin/env bash
# Chaos suite: the daemon killed with SIGKILL at a random moment of each service's work, ZooKeeper (the table lock)
# stopped and restarted while a daemon holds the lock, and two overlapping `once` runs, with a real Hudi writer
# writing between trials. After every trial a daemon on the same configuration finishes what was interrupted and
# the suite checks: rows equal the writer's model (snapshot listed on storage and from the metadata table), nothing
# pending, the metadata table lists the same latest base files as storage, no file slice or group in two plans.
#
#   bench/chaos.sh                    # 20 trials of each scenario (about 40 s a trial on 2 cores: ~1.5 h)
#   TRIALS=3 bench/chaos.sh           # a quicker run
#   SCENARIOS=COMPACTION,CLEAN bench/chaos.sh
#
# Environment (defaults in brackets):
#   TRIALS     rounds; each round runs every scenario once                 [20]
#   SCENARIOS  subset of COMPACTION, CLUSTERING, BINARY_COPY, CLEAN, ARCHIVE, INDEX, ZOOKEEPER_RESTART,
#              OVERLAPPING_ONCE_CLUSTERING,
#              OVERLAPPING_ONCE                                              [all]
#   SEED       random seed of the kill moments                               [time-based; printed]
#
# It runs src-it's ChaosIT (which `mvn verify` runs with one round) and prints its table of trials: what each
# disturbance interrupted (the instants pending at the kill) and the result. The table is also left in
# src-it/target/it-work/ChaosIT/trials.txt; the daemons' logs beside it, one directory per trial.
set -euo pipefail

home=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$home"
properties=(-Dchaos.trials="${TRIALS:-20}")
[ -n "${SCENARIOS:-}" ] && properties+=(-Dchaos.scenarios="$SCENARIOS")
[ -n "${SEED:-}" ] && properties+=(-Dchaos.seed="$SEED")

status=0
mvn -B -ntp -pl src-it -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=ChaosIT -Dfailsafe.failIfNoSpecifiedTests=false "${properties[@]}" \
  > "${TMPDIR:-/tmp}/hudi-tsd-chaos.log" 2>&1 || status=$?
trials=src-it/target/it-work/ChaosIT/trials.txt
if [ -f "$trials" ]; then
  cat "$trials"
else
  echo "bench/chaos.sh: no table of trials; see ${TMPDIR:-/tmp}/hudi-tsd-chaos.log" >&2
fi
exit "$status"
