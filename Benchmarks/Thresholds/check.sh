#!/usr/bin/env bash
# The benchmark thresholds CI fails on (BENCHMARKS.md, "Thresholds CI fails on"):
#   1. instructions per operation of each workload, under valgrind's callgrind (check-instructions.py
#      against instructions.json), and the instructions of a whole `config-dump --key` run of the static
#      executable users install (Scripts/build-release.sh), its start-up row;
#   2. heap allocations per operation (package-benchmark's `thresholds check` against Thresholds/).
# Both run; exits non-zero when either finds a regression.
set -euo pipefail
cd "$(dirname "$0")"
failed=()

echo "-- instructions per operation (callgrind; instructions.json)"
swift build -c release --product strata-instructions
config_dump=$(../../Scripts/build-release.sh | tail -1)
./check-instructions.py --config-dump "$config_dump" || failed+=("instructions (check-instructions.py)")

echo "-- heap allocations per operation (package-benchmark; Thresholds/*.p90.json)"
# The plugin exits with 1 for a regression and for improvements alike, naming which in its last line.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift package benchmark thresholds check --path "$PWD/Thresholds" --no-progress 2>&1 | tee "$log"; then
  if grep -q "error: benchmarkThresholdImprovement" "$log"; then
    # Every deviation is an improvement: passes; recording it keeps the thresholds tight.
    echo "note: allocations fell below the recorded thresholds; record them (BENCHMARKS.md, Thresholds CI fails on)"
  else
    failed+=("allocations (benchmark thresholds check)")
  fi
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'error: benchmark thresholds exceeded: %s\n' "${failed[*]}" >&2
  exit 1
fi
