#!/usr/bin/env bash
# Checks that the public API of the Strata and StrataTesting products keeps what the last release had:
# `swift package diagnose-api-breaking-changes` against the newest release tag reachable from HEAD. It
# builds the tagged revision (in a scratch directory of its own) and compares the two APIs; any removed
# or changed public declaration fails the check.
#
# Usage: Scripts/api-breakage.sh [BASELINE]
# BASELINE: a tag, branch or commit to compare with (default: `git describe --tags --abbrev=0`).
# Without a tag (none has been made yet) there is nothing to compare with: the script says so and exits
# 0. A break that a release means to make is listed, one message per line exactly as the tool prints
# it, in Scripts/api-breakage-allowlist.txt (read when it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: Scripts/api-breakage.sh [BASELINE]" >&2
  exit 2
fi
baseline="${1:-}"
if [ -z "$baseline" ] && ! baseline=$(git describe --tags --abbrev=0 2>/dev/null); then
  if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
    echo "error: no tag is reachable from HEAD in this shallow clone, which may lack the release tags;" >&2
    echo "fetch them ('git fetch --unshallow --tags', or a CI checkout with full history) and run again" >&2
    exit 1
  fi
  echo "API breakage check skipped: no release tag is reachable from HEAD ('git tag' lists" \
    "$(git tag | wc -l) tags), so there is no released API to compare with. It runs once the first" \
    "release is tagged (or give a baseline: Scripts/api-breakage.sh REVISION)."
  exit 0
fi
allowlist=()
if [ -f Scripts/api-breakage-allowlist.txt ]; then
  allowlist=(--breakage-allowlist-path Scripts/api-breakage-allowlist.txt)
fi
echo "Comparing the public API of Strata and StrataTesting with $baseline"
swift package --scratch-path .build-api diagnose-api-breaking-changes "$baseline" \
  --products Strata StrataTesting "${allowlist[@]}"
