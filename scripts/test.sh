#!/usr/bin/env bash
# The full test suite (`npm run test`, what CI runs): installs what is missing, type-checks the
# whole repository, runs every test file, and ends with the ten slowest files.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test || exit 1
echo "[test] type-checking (tsc --noEmit)"
npx tsc --noEmit || { echo "[test] type errors: fix them first"; exit 1; }
mkdir -p bench/out
bun test --timeout 60000 --reporter=junit --reporter-outfile=bench/out/test-report.xml "$@"
code=$?
bun scripts/slowest-tests.ts bench/out/test-report.xml || true
exit $code
