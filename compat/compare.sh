#!/usr/bin/env bash
# Runs every case of cases.tsv through the real @mastra/core 1.71.0 and
# through `ws call`, each on a fresh copy of the Appendix A fixture, and
# prints the cases whose text differs. Every difference must be one that
# docs/compat.md lists (or ws's framing: a failure on stderr as "ws: …").
# Not part of the build or CI: it needs node and npm.
#   compat/compare.sh [MASTRA_DIR [CASES]]   (default: a temporary npm install, cases.tsv)
#
# A line of cases.tsv is TOOL <tab> INPUT [<tab> CONFIG]. TOOL "-" makes
# INPUT a batch: a JSON array of [tool, input] pairs run in order (one
# Mastra tool set; one ws call each, sharing the state directory), every
# result followed by a "-----" line. CONFIG is a ws config file's JSON; its
# "tools", "filesystem", "bm25" and "skills" keys become the same Mastra
# options. A "setup" key in it (not part of the ws config) is a shell
# command run in both fixture copies first. <ROOT> in INPUT is the fixture
# copy's absolute path, <NAME> the name of its directory.
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
# part KEY JSON: the value of one top-level key of a JSON object as JSON
# ("" if absent; a string as it is)
part() { node -e 'const v = JSON.parse(process.argv[1])[process.argv[2]]; process.stdout.write(v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v))' "$2" "$1"; }
# subst TEXT m|w: TEXT with <ROOT> as that fixture copy's absolute path and
# <NAME> as its directory's name
subst() { local t=${1//<ROOT>/$work/$2}; printf %s "${t//<NAME>/$2}"; }
# wscall TOOL INPUT: one ws call; its output, as compared, in $out
wscall() {
  local id=mastra_workspace_$1
  case $1 in skill|skill_search|skill_read) id=$1 ;; esac
  out=$(WS_STATE_DIR="$work/state" "$work/ws" --root "$work/w" "${cfgflag[@]}" call "$id" "$2" 2>&1; echo .)
  out=${out%.}; out=${out%$'\n'}; out=${out#ws: }
}
n=0 same=0
while IFS=$'\t' read -r tool input config; do
  n=$((n+1))
  rm -rf "$work/m" "$work/w" "$work/state"
  node "$mastra/fixture.mjs" "$work/m"; node "$mastra/fixture.mjs" "$work/w"
  cfgflag=() margs=("" "") bm25="" skills=""
  if [ -n "${config:-}" ]; then
    setup=$(part setup "$config")
    if [ -n "$setup" ]; then (cd "$work/m" && sh -c "$setup"); (cd "$work/w" && sh -c "$setup"); fi
    node -e 'const c = JSON.parse(process.argv[1]); delete c.setup; process.stdout.write(JSON.stringify(c))' "$config" > "$work/config.json"
    cfgflag=(--config "$work/config.json")
    margs=("$(part tools "$config")" "$(part filesystem "$config")")
    bm25=$(part bm25 "$config") skills=$(part skills "$config")
  fi
  a=$(WS_BM25=$bm25 WS_SKILLS=$skills node "$mastra/call.mjs" "$work/m" "$tool" "$(subst "$input" m)" "${margs[@]}" 2>/dev/null; echo .)
  a=${a%.}
  if [ "$tool" = - ]; then
    a=$(printf %s "$a" | perl -0pe 's/(^|-----\n)THROWN [A-Za-z]+: /$1/g'; echo .); a=${a%.}
    b=
    while IFS= read -r pair; do
      wscall "$(part 0 "$pair")" "$(part 1 "$(subst "$pair" w)")"
      b+=$out$'\n-----\n'
    done < <(node -e 'for (const p of JSON.parse(process.argv[1])) console.log(JSON.stringify(p))' "$input")
  else
    a=${a#THROWN *: }
    wscall "$tool" "$(subst "$input" w)"; b=$out
  fi
  a=${a//$work\/m/<ROOT>}; b=${b//$work\/w/<ROOT>}
  if [ "$a" = "$b" ]; then same=$((same+1)); continue; fi
  printf '=== %s %s %s\n--- mastra\n%s\n--- ws\n%s\n' "$tool" "$input" "${config:-}" "$(printf %s "$a" | head -c 600)" "$(printf %s "$b" | head -c 600)"
done < "${2:-$here/cases.tsv}"
echo "$same of $n cases print the same text; review the others against docs/compat.md"
