#!/usr/bin/env bash
# The full test suite (`npm run test`, what CI runs): installs what is missing, type-checks the
# whole repository, runs every test file, and ends with the ten slowest files.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test || exit 1
echo "[test] type-checking (tsc --noEmit)"
npx tsc --noEmit || { echo "[test] type errors: fix them first"; exit 1; }
mkdir -p bench/out
# One file at a time by default. SVC_TEST_PARALLEL=2 runs two (11 min instead of 13.5 on 2 cores,
# slowest first from scripts/test-timings.json), but under that load one embed test
# (wopi-host "closes after 30 s") still finds its document closed early now and then: the default
# stays one until it is understood.
parallel="${SVC_TEST_PARALLEL:-1}"
if [ "$parallel" -gt 1 ]; then
  bun test --parallel="$parallel" --timings=scripts/test-timings.json --timeout 60000 --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
else
  bun test --timeout 60000 --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
fi
code=$?
bun scripts/slowest-tests.ts bench/out/test-report.xml || true
exit $code
