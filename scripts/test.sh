#!/usr/bin/env bash
# The full test suite (`npm run test`, what CI runs): installs what is missing, type-checks the
# whole repository, runs every test file, and ends with the ten slowest files.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test || exit 1
echo "[test] type-checking (tsc --noEmit)"
npx tsc --noEmit || { echo "[test] type errors: fix them first"; exit 1; }
mkdir -p bench/out
# Two files at a time (SVC_TEST_PARALLEL): most tests wait on an engine, a browser or a timer, so
# two processes on 2 cores take 11 min where one took 13.5. The slowest files start first
# (scripts/test-timings.json, from a full run: refresh it with --update-timings after big changes).
bun test --parallel="${SVC_TEST_PARALLEL:-2}" --timings=scripts/test-timings.json --timeout 60000 --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
code=$?
bun scripts/slowest-tests.ts bench/out/test-report.xml || true
exit $code
