#!/usr/bin/env bash
# Fuzzes StrataYAML (Integrations/Sources/StrataYAML, over Yams and libyaml) with libFuzzer.
#
# Usage: Scripts/fuzz-yaml.sh [SECONDS]   (default 60)
#
# Builds Integrations' strata-yaml-fuzz with SwiftPM's fuzzer and address sanitizers (scratch path
# Integrations/.build-fuzz), seeds it with the YAML corpus of the tests, and runs it. Each input must
# parse or be refused, and a parsed document must serialize and parse back to an equal tree. Exits
# non-zero when the target crashes, hangs (10 s on one input) or runs out of memory (2 GiB); the
# reproducer's path is printed. Reproduce with: Integrations/.build-fuzz/debug/strata-yaml-fuzz PATH,
# or, built without the fuzzer, swift run --package-path Integrations strata-yaml-fuzz PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
scratch=Integrations/.build-fuzz
work=$scratch/work
mkdir -p "$work/corpus" "$work/artifacts"

echo "== fuzz yaml: building strata-yaml-fuzz"
swift build --package-path Integrations --scratch-path "$scratch" --product strata-yaml-fuzz \
  --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING 2>&1 | tail -1
binary=$scratch/debug/strata-yaml-fuzz

# Seeds: the generated documents and the real files of the corpus that are under 16 KiB.
seeds=$work/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
find Integrations/Tests/StrataYAMLTests/Corpus -name '*.y*ml' -size -16k -exec cp -t "$seeds" {} + 2>/dev/null || true

echo "== fuzz yaml: $seconds s"
if ! "$binary" "$work/corpus" "$seeds" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$work/log" 2>&1; then
  tail -40 "$work/log"
  echo "error: the YAML fuzz target failed; reproducer in $work/artifacts/" >&2
  exit 1
fi
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/log" || true
echo "fuzz yaml: no crash, hang or leak in $seconds s"
