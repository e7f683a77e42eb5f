#!/usr/bin/env bash
# The suite on a busy machine: every core kept busy by other processes (one `yes` per core, as
# a shared CI runner or a laptop compiling something else is), then `npm test` several times in
# a row. Prints each run's result and time; exits 1 if any run failed.
#
#   scripts/test-under-load.sh [runs (default 3)] [busy processes (default: one per core)]
#
# Each run's output is kept in .tmp/under-load-N.log.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
busy=${2:-$(nproc)}
mkdir -p .tmp

hogs=()
stop_hogs() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_hogs EXIT
for _ in $(seq "$busy"); do
  yes >/dev/null &
  hogs+=("$!")
done
echo "$busy busy processes on $(nproc) cores; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

failed=0
for run in $(seq "$runs"); do
  log=".tmp/under-load-$run.log"
  started=$(date +%s)
  if npx vitest run >"$log" 2>&1; then result=passed; else result=FAILED; failed=$((failed + 1)); fi
  echo "run $run: $result in $(($(date +%s) - started)) s, load average $(cut -d' ' -f1-3 /proc/loadavg) ($log)"
done
[ "$failed" -eq 0 ]
