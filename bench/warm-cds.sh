# Sourced by the benchmarks that time `bin/tsd once` (binary-copy.sh, clustering.sh, compaction.sh); needs the
# caller's log function. bin/tsd writes its class-data-sharing archive when the first `once` of a build and --services
# exits (docs/running.md): one unmeasured once of the same command, on a copy of the source table, makes every
# measured once start as a user's every later run does.

# warm_cds_archive HOME DIR SOURCE_TABLE ONCE_ARGS...: runs "HOME/bin/tsd once --table <copy> ONCE_ARGS..." on a copy
# of SOURCE_TABLE under DIR/runs, its output in DIR/logs/cds-warmup.out; a failure is not the benchmark's (the
# measured runs that follow report their own).
warm_cds_archive() {
  local home=$1 dir=$2 source_table=$3
  shift 3
  log "warming bin/tsd's class-data-sharing archive (unmeasured once on a copy)"
  rm -rf "$dir/runs/cds-warmup"
  cp -a "$source_table" "$dir/runs/cds-warmup"
  "$home/bin/tsd" once --table "$dir/runs/cds-warmup" "$@" >"$dir/logs/cds-warmup.out" 2>&1 || true
  rm -rf "$dir/runs/cds-warmup"
}
