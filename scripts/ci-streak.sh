#!/usr/bin/env bash
# Fresh-clone CI runs one after another (issue 34): `bash scripts/ci-streak.sh <runs> [burn] [logdir]`.
# Each run clones this repository's HEAD (committed work only) into a temporary folder, runs
# `CI=true bash .ci/run` there, and appends one line to <logdir>/summary.tsv (default
# test-results/streak): run, mode, commit, start and end (UTC), exit code, seconds, the summary line
# `N passed, M failed`, and the load average at the end. With `burn`, `npm run burn -- 2` runs beside
# each run (the busy-machine case). It stops at the first red run, whose log is kept.
set -uo pipefail
runs=${1:?usage: scripts/ci-streak.sh <runs> [burn] [logdir]}
mode=${2:-idle}
repo=$(cd "$(dirname "$0")/.." && pwd)
logdir=$(mkdir -p "${3:-$repo/test-results/streak}" && cd "${3:-$repo/test-results/streak}" && pwd)
for ((n = 1; n <= runs; n++)); do
  dir=$(mktemp -d)
  git clone -q "$repo" "$dir/clone"
  commit=$(git -C "$dir/clone" rev-parse --short HEAD)
  log="$logdir/run-$(date -u +%Y%m%dT%H%M%S)-$commit.log"
  started=$(date +%s)
  begin=$(date -u +%H:%M)
  burner=""
  if [ "$mode" = burn ]; then
    (cd "$dir/clone" && exec node scripts/burn.mjs 2 14400 >/dev/null 2>&1) &
    burner=$!
  fi
  (cd "$dir/clone" && CI=true bash .ci/run) >"$log" 2>&1
  rc=$?
  [ -n "$burner" ] && kill "$burner" 2>/dev/null
  printf '%s\t%s\t%s\t%s\t%s\trc=%s\t%ss\t%s\tload=%s\n' "$n" "$mode" "$commit" "$begin" "$(date -u +%H:%M)" "$rc" \
    "$(($(date +%s) - started))" "$(tail -n 1 "$log")" "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$logdir/summary.tsv"
  rm -rf "$dir"
  [ "$rc" -eq 0 ] || { echo "run $n was red: $log"; exit 1; }
done
