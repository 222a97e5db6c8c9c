#!/usr/bin/env bash
# Checks that the public API of the Strata and StrataTesting products keeps what the last release had:
# `swift package diagnose-api-breaking-changes` against the release's commit. It builds that revision (in
# a scratch directory of its own, .build-api) and compares the two APIs; any removed or changed public
# declaration fails the check.
#
# Usage: Scripts/api-breakage.sh [BASELINE]
# BASELINE: a tag, branch or commit to compare with. By default it is the commit that
# Scripts/api-baseline.txt names (one line `VERSION COMMIT`, which cutting a release rewrites), or, when
# that file does not exist, the newest tag reachable from HEAD (`git describe --tags --abbrev=0`); with
# neither, there is nothing to compare with: the script says so and exits 0. The baseline must be in
# this clone: a shallow clone without it fails, asking for the full history. A break that a release
# means to make is listed, one message per line exactly as the tool prints it, in
# Scripts/api-breakage-allowlist.txt (read when it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: Scripts/api-breakage.sh [BASELINE]" >&2
  exit 2
fi
baseline="${1:-}"
described="$baseline"
if [ -z "$baseline" ] && [ -f Scripts/api-baseline.txt ]; then
  # The first line that is neither blank nor a comment: VERSION COMMIT.
  line=$(grep -v -E '^[[:space:]]*(#|$)' Scripts/api-baseline.txt | head -n 1 || true)
  read -r version baseline rest <<<"$line" || true
  if [ -z "${version:-}" ] || ! [[ "${baseline:-}" =~ ^[0-9a-f]{40}$ ]] || [ -n "${rest:-}" ]; then
    echo "error: Scripts/api-baseline.txt must hold one line 'VERSION COMMIT' (a 40-digit commit); it has '$line'" >&2
    exit 1
  fi
  described="$version (commit $baseline, from Scripts/api-baseline.txt)"
elif [ -z "$baseline" ]; then
  if ! baseline=$(git describe --tags --abbrev=0 2>/dev/null); then
    if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
      echo "error: no tag is reachable from HEAD in this shallow clone, which may lack the release tags;" >&2
      echo "fetch them ('git fetch --unshallow --tags', or a CI checkout with full history) and run again" >&2
      exit 1
    fi
    echo "API breakage check skipped: Scripts/api-baseline.txt does not exist and no release tag is" \
      "reachable from HEAD ('git tag' lists $(git tag | wc -l) tags), so there is no released API to compare" \
      "with (or give a baseline: Scripts/api-breakage.sh REVISION)."
    exit 0
  fi
  described="$baseline (the newest tag)"
fi
if ! git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null; then
  if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
    echo "error: the baseline $described is not in this shallow clone; fetch the full history" \
      "('git fetch --unshallow', or a CI checkout with full history, e.g. fetch-depth: 0) and run again" >&2
  else
    echo "error: the baseline $described is not in this repository; fetch it ('git fetch --tags origin')" \
      "or check its name, and run again" >&2
  fi
  exit 1
fi
allowlist_file=Scripts/api-breakage-allowlist.txt
allowlist=()
if [ -f "$allowlist_file" ]; then
  allowlist=(--breakage-allowlist-path "$allowlist_file")
fi
echo "Comparing the public API of Strata and StrataTesting with $described"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if swift package --scratch-path .build-api diagnose-api-breaking-changes "$baseline" \
  --products Strata StrataTesting "${allowlist[@]}" 2>&1 | tee "$log"; then
  exit 0
fi
# SwiftPM does not always hand the allowlist to the API digester, so the breaks it reports are
# compared with the allowlist here too: the check passes when every reported break is listed (exact
# lines; comments and blank lines in the allowlist are ignored). A failure that reports no break (a
# build that failed) fails.
reported=$(grep -o 'API breakage: .*' "$log" | sort -u || true)
if [ -z "$reported" ]; then
  echo "error: the API comparison failed without reporting a break (see above)" >&2
  exit 1
fi
listed=""
if [ -f "$allowlist_file" ]; then
  listed=$(grep -v -E '^[[:space:]]*(#|$)' "$allowlist_file" | sort -u || true)
fi
unlisted=$(comm -23 <(printf '%s\n' "$reported") <(printf '%s\n' "$listed"))
if [ -n "$unlisted" ]; then
  echo "error: breaking changes not in $allowlist_file:" >&2
  printf '%s\n' "$unlisted" >&2
  exit 1
fi
echo "Every reported break ($(printf '%s\n' "$reported" | wc -l)) is listed in $allowlist_file: passed"
