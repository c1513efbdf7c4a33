#!/usr/bin/env bash
# The full test suite (`npm run test`, what CI runs): installs what is missing, type-checks the
# whole repository, runs every test file, and ends with the ten slowest files.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test || exit 1
echo "[test] type-checking (tsc --noEmit)"
npx tsc --noEmit || { echo "[test] type errors: fix them first"; exit 1; }
mkdir -p bench/out
# SVC_TEST_BUSY=N runs N CPU-bound busy loops beside the suite, at normal priority, and stops them
# after it: the busy neighbour of a CI runner or a laptop, on demand (the suite must pass with 2).
busy="${SVC_TEST_BUSY:-0}"
busy_pids=()
if [ "$busy" -gt 0 ]; then
  for ((i = 0; i < busy; i++)); do (while :; do :; done) & busy_pids+=($!); done
  trap 'kill "${busy_pids[@]}" 2>/dev/null' EXIT
  echo "[test] $busy busy loop(s) beside the suite (SVC_TEST_BUSY), pids ${busy_pids[*]}"
fi
# Two files at a time by default (11 min instead of 14 on 2 cores), slowest first from
# scripts/test-timings.json so the long browser files do not end up last; SVC_TEST_PARALLEL=1 runs
# one file at a time, to tell a test that fails under load from one that fails alone.
parallel="${SVC_TEST_PARALLEL:-2}"
# SVC_TEST_TIME_SCALE (a slower machine) lengthens every deadline: the waits inside tests
# (app/testing/until.ts), the timeouts the tests give themselves, and this default one.
timeout=$(awk -v s="${SVC_TEST_TIME_SCALE:-1}" 'BEGIN { if (s + 0 < 1) s = 1; printf "%d", 60000 * s }')
if [ "$parallel" -gt 1 ]; then
  bun test --parallel="$parallel" --timings=scripts/test-timings.json --timeout "$timeout" --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
else
  bun test --timeout "$timeout" --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
fi
code=$?
bun scripts/slowest-tests.ts bench/out/test-report.xml || true
exit $code
