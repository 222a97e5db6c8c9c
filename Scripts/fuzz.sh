#!/usr/bin/env bash
# Fuzzes Strata's parsers and conversions with libFuzzer.
#
# Usage: Scripts/fuzz.sh [TARGET|all] [SECONDS]
#   TARGET   json, json-splice, plist-xml, plist-binary, ini, dotenv, toml, env, decoder, or all (the default)
#   SECONDS  how long each target runs (default 60)
#
# Builds one binary (.build-fuzz/strata-fuzz: every library source plus Fuzz/*.swift, compiled once with
# -sanitize=fuzzer,address, over the platform layer Sources/StrataPlatform built as a module of its own,
# with its C signal handler), writes seeds from the tests, the samples and ../shared/conformance, then runs
# each target in turn. Corpora grow in .build-fuzz/corpus/TARGET across runs. Exits non-zero when any
# target crashes, hangs (10 s on one input) or runs out of memory (2 GiB); the reproducer's path is
# printed. Reproduce with: STRATA_FUZZ_TARGET=TARGET .build-fuzz/strata-fuzz PATH
# (add -minimize_crash=1 -runs=100000 to shrink it).
#
# Environment: STRATA_FUZZ_DIR (default .build-fuzz) for the scratch directory; STRATA_FUZZ_ARGS for
# extra libFuzzer flags (such as -jobs or -use_value_profile=1).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(json json-splice plist-xml plist-binary ini dotenv toml env decoder)
which=${1:-all}
seconds=${2:-60}
scratch=${STRATA_FUZZ_DIR:-.build-fuzz}
binary=$scratch/strata-fuzz

if [ "$which" = all ]; then
  targets=("${all_targets[@]}")
elif [[ " ${all_targets[*]} " == *" $which "* ]]; then
  targets=("$which")
else
  echo "usage: $0 [${all_targets[*]// /|}|all] [seconds]" >&2
  exit 2
fi

max_len() {
  case $1 in
    plist-binary | decoder) echo 8192 ;;
    env) echo 4096 ;;
    *) echo 16384 ;;
  esac
}

mkdir -p "$scratch/corpus" "$scratch/artifacts" "$scratch/logs"

# One compile of the whole library with the fuzzer and ASan instrumentation, redone when a source is
# newer than the binary. The platform layer is a module the library imports: built first, as a static
# library with its module beside it (ASan only: it holds no parser to fuzz).
sources=$(find Sources/Strata Fuzz -name '*.swift' | sort)
platform_sources=$(find Sources/StrataPlatform -name '*.swift' | sort)
platform=$scratch/platform
# The platform layer's C part (the signal handler), compiled into the same static library.
signals=Sources/CStrataSignals
if [ ! -x "$binary" ] || [ -n "$(find Sources/Strata Sources/StrataPlatform "$signals" Fuzz -type f -newer "$binary")" ]; then
  echo "== fuzz: building $binary"
  start=$SECONDS
  mkdir -p "$platform"
  rm -f "$platform/libStrataPlatform.a"
  clang -fsanitize=address -O2 -g -fPIC -I "$signals/include" -c "$signals/SignalWake.c" -o "$platform/SignalWake.o"
  # shellcheck disable=SC2086
  swiftc -sanitize=address -parse-as-library -module-name StrataPlatform -package-name Strata -swift-version 6 -O -wmo -g \
    -I "$signals/include" -emit-library -static -emit-module -emit-module-path "$platform/StrataPlatform.swiftmodule" \
    $platform_sources -o "$platform/libStrataPlatform.a"
  ar rs "$platform/libStrataPlatform.a" "$platform/SignalWake.o"
  # shellcheck disable=SC2086
  swiftc -sanitize=fuzzer,address -parse-as-library -module-name StrataFuzz -package-name Strata -swift-version 6 -O -wmo -g \
    -use-ld=lld -I "$platform" -I "$signals/include" -L "$platform" -lStrataPlatform $sources -o "$binary.tmp"
  mv "$binary.tmp" "$binary"
  echo "== fuzz: built in $((SECONDS - start)) s"
fi

# Seeds: rewritten on every run (they are small); the corpora that grow are kept.
rm -rf "$scratch/seeds"
python3 Scripts/fuzz-seeds.py . "$scratch/seeds"
STRATA_FUZZ_MAKE_SEEDS="$scratch/seeds" STRATA_FUZZ_SANDBOX="$PWD/$scratch/sandbox" "$binary"

failed=()
summary=()
for target in "${targets[@]}"; do
  corpus=$scratch/corpus/$target
  log=$scratch/logs/$target.log
  mkdir -p "$corpus"
  echo "== fuzz: $target for $seconds s (log: $log)"
  status=0
  # Swift's own backtracer would race ASan's report of a trap; libFuzzer prints the stack instead.
  SWIFT_BACKTRACE=enable=no STRATA_FUZZ_SANDBOX="$PWD/$scratch/sandbox" STRATA_FUZZ_TARGET=$target "$binary" "$corpus" "$scratch/seeds/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")" \
    -dict="Fuzz/Dictionaries/$target.dict" -artifact_prefix="$scratch/artifacts/$target-" \
    -print_final_stats=1 -reload=0 ${STRATA_FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
  line="$target: ${execs:-?} execs, ${speed:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, peak RSS ${rss:-?} MB"
  if [ "$status" -ne 0 ]; then
    # The failure's message (which may span lines) and the sanitizer's summary.
    sed -n '/Fatal error\|ERROR: \(AddressSanitizer\|libFuzzer\)\|ALARM/,/^SUMMARY/p' "$log" | grep -v '^ *#[0-9]' |
      head -40 || true
    reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    line="$line — FAILED (exit $status), reproducer: ${reproducer:-none written; see $log}"
    failed+=("$target")
  fi
  echo "$line"
  summary+=("$line")
done

echo "== fuzz: summary"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "error: fuzzing failed for: ${failed[*]}" >&2
  exit 1
fi
