#!/usr/bin/env bash
# Runs the benchmarks against two LibreOffices on one machine, each benchmark for one engine then
# the other, so that each pair is measured minutes apart (docs/benchmarks-history.md, "LibreOffice 7.4 and
# 25.2"). The other engine is a program folder, e.g. a copy made by scripts/engine-copy.sh:
#   bench/compare-engines.sh /opt/lo74/usr/lib/libreoffice/program [bench ...]
# Benches: engine-start bench corpus corpus-editor edsrv keys recovery capacity (all by default).
# Outputs: bench/out/compare/<bench>-<other|default>.log
set -uo pipefail
cd "$(dirname "$0")/.."
other="$1"; shift
benches=("$@"); [ ${#benches[@]} -gt 0 ] || benches=(engine-start bench corpus corpus-editor edsrv keys recovery capacity)
out=bench/out/compare; mkdir -p "$out"
run() { # <bench> <label> [env...]
  local b="$1" label="$2"; shift 2
  local cmd
  case "$b" in
    engine-start) cmd=(bun bench/engine-start.ts) ;;
    bench) cmd=(env BENCH_REPS=10 bun bench/run.ts) ;;
    corpus) cmd=(env BENCH_CORPUS_REPS=3 BENCH_CORPUS_SHORT_REPS=5 bun bench/corpus-floor.ts) ;;
    corpus-editor) cmd=(bun bench/corpus-editor.ts) ;;
    edsrv) cmd=(bun bench/edsrv.ts) ;;
    keys) cmd=(bun bench/keystroke.ts) ;;
    recovery) cmd=(env BENCH_RUNS=5 BENCH_LONG_RUNS=2 bun bench/recovery.ts) ;;
    capacity) cmd=(bun bench/capacity.ts --steps 1,10,20,40,60 --layouts one,ten --hold 30 --no-admission) ;;
    *) echo "unknown bench $b"; return 1 ;;
  esac
  echo "[compare] $(date -u +%H:%M:%S) $b ($label)"
  env "$@" "${cmd[@]}" > "$out/$b-$label.log" 2>&1
  echo "[compare] $(date -u +%H:%M:%S) $b ($label) exit $?"
}
for b in "${benches[@]}"; do
  run "$b" other SVC_ENGINE_PROGRAM_DIR="$other"
  run "$b" default
done
