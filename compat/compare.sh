#!/usr/bin/env bash
# Runs every case of cases.tsv through the real @mastra/core 1.71.0 and
# through `ws call`, each on a fresh copy of the Appendix A fixture, and
# prints the cases whose text differs. Every difference must be one that
# docs/compat.md lists (or ws's framing: a failure on stderr as "ws: …").
# Not part of the build or CI: it needs node and npm.
#   compat/compare.sh [MASTRA_DIR]    (default: a temporary npm install)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mastra=${1:-}
if [ -z "$mastra" ]; then
  mastra=$(mktemp -d)
  (cd "$mastra" && npm init -y >/dev/null && npm i @mastra/core@1.71.0 >/dev/null 2>&1)
fi
cp "$here/call.mjs" "$here/fixture.mjs" "$mastra/"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/ws" .)
n=0 same=0
while IFS=$'\t' read -r tool input; do
  n=$((n+1))
  rm -rf "$work/m" "$work/w" "$work/state"
  node "$mastra/fixture.mjs" "$work/m"; node "$mastra/fixture.mjs" "$work/w"
  a=$(node "$mastra/call.mjs" "$work/m" "$tool" "$input" 2>/dev/null; echo .)
  b=$(WS_STATE_DIR="$work/state" "$work/ws" --root "$work/w" call "mastra_workspace_$tool" "$input" 2>&1; echo .)
  a=${a%.}; b=${b%.}; b=${b%$'\n'}
  a=${a//$work\/m/<ROOT>}; b=${b//$work\/w/<ROOT>}
  a=${a#THROWN *: }; b=${b#ws: }
  if [ "$a" = "$b" ]; then same=$((same+1)); continue; fi
  printf '=== %s %s\n--- mastra\n%s\n--- ws\n%s\n' "$tool" "$input" "$(printf %s "$a" | head -c 600)" "$(printf %s "$b" | head -c 600)"
done < "$here/cases.tsv"
echo "$same of $n cases print the same text; review the others against docs/compat.md"
