#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain's docc (the package takes no docc plugin: it has no
# dependencies) over the library's symbol graph. Fails when docc fails or reports any problem, in the
# catalog's articles or in the doc comments (a broken link, a missing symbol, an undocumented parameter).
#
# Usage: Scripts/docc.sh [OUTPUT-DIRECTORY]
# Without an argument the rendered catalog is checked and thrown away (CI). With one, it is left there:
# a static site (index.html, data/, documentation/) to serve with any web server.
set -euo pipefail
output=""
if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: Scripts/docc.sh [OUTPUT-DIRECTORY]" >&2
  exit 2
fi
if [ $# -eq 1 ]; then
  # Resolved before the cd below, so that a relative path means the caller's directory.
  mkdir -p "$1"
  output=$(cd "$1" && pwd)
fi
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
hosting=()
# A site a person opens needs the renderer's files beside the data (index.html, js, css).
[ -n "$output" ] && hosting=(--transform-for-static-hosting)
"$docc" convert Sources/Strata/Strata.docc --additional-symbol-graph-dir "$work/strata" \
  --fallback-display-name Strata --fallback-bundle-identifier strata "${hosting[@]}" \
  --output-path "$work/Strata.doccarchive" 2>&1 | tee "$work/docc.log"
if grep -E "(warning|error):" "$work/docc.log"; then
  echo "error: the DocC catalog has problems (above)" >&2
  exit 1
fi
echo "DocC catalog built: $(find "$work/Strata.doccarchive" -name '*.json' | wc -l) pages and symbols"
if [ -n "$output" ]; then
  rm -rf "$output/Strata.doccarchive"
  cp -R "$work/Strata.doccarchive" "$output/"
  site="$output/Strata.doccarchive"
  echo "The rendered catalog is in $site. To read it, serve that directory and open the page:"
  echo "  python3 -m http.server --directory '$site' 8000"
  echo "  then http://localhost:8000/documentation/strata/ in a browser"
  echo "(or open the archive with Xcode on a Mac)."
fi
