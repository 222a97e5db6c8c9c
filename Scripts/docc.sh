#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain's docc (the package takes no docc plugin: it has no
# dependencies) over the library's symbol graph. Fails when docc fails or reports any problem, in the
# catalog's articles or in the doc comments (a broken link, a missing symbol, an undocumented parameter).
set -euo pipefail
cd "$(dirname "$0")/.."
docc=$(command -v docc || echo "$(dirname "$(command -v swift)")/docc")
if [ ! -x "$docc" ]; then
  echo "docc is not in this toolchain; skipping the catalog build" >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build --target Strata --scratch-path .build-docc \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/graphs" >/dev/null
mkdir -p "$work/strata"
cp "$work/graphs/Strata.symbols.json" "$work/strata/"
"$docc" convert Sources/Strata/Strata.docc --additional-symbol-graph-dir "$work/strata" \
  --fallback-display-name Strata --fallback-bundle-identifier strata \
  --output-path "$work/Strata.doccarchive" 2>&1 | tee "$work/docc.log"
if grep -E "(warning|error):" "$work/docc.log"; then
  echo "error: the DocC catalog has problems (above)" >&2
  exit 1
fi
echo "DocC catalog built: $(find "$work/Strata.doccarchive" -name '*.json' | wc -l) pages and symbols"
