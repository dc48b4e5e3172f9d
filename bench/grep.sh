#!/usr/bin/env bash
# ws grep against ripgrep on a copy of the Go source tree, as whole
# processes, side by side in one hyperfine run per pattern (Debian packages
# hyperfine and ripgrep). Every pattern class agents use: a literal,
# case-insensitive literals and regexes, \w classes, an alternation, and a
# pattern with more than 1000 matches (ws stops at Mastra's cap of 1000
# there, so it is also timed with -c, which counts every match as rg -c
# does), and a -U pattern that matches across lines (counted as the lines
# its matches cover: rg -U -c counts matches); and the patterns only the
# ECMAScript engine runs (lookbehind, backreferences), against rg -P, on
# the tree and on a generated log of LOG_MB megabytes (default 300: over
# the size searched in windows). Match counts must agree. Prints the
# medians and ws/rg per pattern (the median of several rounds' ratios);
# targets: <= 1.2 for literals, <= 1.3 for the rest.
#   bench/grep.sh        ROUNDS=9 RUNS=10 bench/grep.sh        WS_BENCH_TREE=copy bench/grep.sh
#   ONLY='no literal' bench/grep.sh   (the classes that match a regexp)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
for t in hyperfine rg python3; do command -v $t >/dev/null || { echo "bench/grep.sh needs $t (apt-get install hyperfine ripgrep python3)" >&2; exit 1; }; done
mkdir -p bench/out
CGO_ENABLED=0 go build -o bench/out/ws . # static, as README builds it
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
if [ -n "${WS_BENCH_TREE:-}" ]; then
  cd "$WS_BENCH_TREE" # a copy made before, e.g. by a previous run
else
  cp -r "$(go env GOROOT)/src" "$tree/src"
  cd "$tree/src"
fi
export WS_STATE_DIR="$tree/state"
srcdir=$PWD
# The log the QA report timed lookbehind and backreference patterns on,
# made for the first case that searches it.
make_log() {
  [ -f "$tree/log/big.log" ] && return
  mkdir -p "$tree/log"
  python3 - "$tree/log/big.log" "${LOG_MB:-300}" <<'PY'
import sys
out, mb = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    i, size = 0, 0
    while size < mb << 20:
        if i % 1000 == 0:
            line = f"2024-01-01 ERROR boom id={i}\n"
        else:
            line = f"2024-01-01 INFO request handled path=/api/v1/items id={i} status=200\n"
        f.write(line)
        size += len(line)
        i += 1
PY
}
ws="$repo/bench/out/ws"
out="$repo/bench/out"
# class;target;flags;pattern[;log: searched in the log, not the tree]
cases=(
  'literal;1.2;;ErrUnexpectedEOF'
  '-i literal;1.2;-i;errunexpectedeof'
  '-i multi-word;1.2;-i;deadline exceeded'
  '-i regex;1.3;-i;func \w+context\('
  '\w class;1.3;;func \w+Context\('
  '\w class;1.3;;\w+Deadline\w*'
  'alternation;1.3;;ErrUnexpectedEOF|ErrShortWrite|ErrClosedPipe'
  'no literal, -c;1.3;-c;\s+$'
  'no literal, -c;1.3;-c;\d{4}-\d{2}-\d{2}'
  '.* heavy, -c;1.3;-c;func.*\(.*ctx.*\)'
  '>1000 matches;1.3;;return nil'
  '>1000 matches, -c;1.3;-c;return nil'
  '-U across lines;1.3;-U;func \w+\([^)]*\n'
  'lookbehind, -c;1.3;-c;(?<=func )\w+'
  'backreference, -c;1.3;-c;(\w+) \1'
  'log lookbehind, -c;1.3;-c;(?<=id=)\d+;log'
  'log backref, -c;1.3;-c;(\d)\1;log'
)
printf '%-20s %-48s %9s %9s %7s %s\n' class pattern 'ws ms' 'rg ms' ws/rg target
for c in "${cases[@]}"; do
  IFS=';' read -r class target flags pattern where <<<"$c"
  if [ -n "${ONLY:-}" ] && ! [[ $class =~ $ONLY ]]; then continue; fi
  q="'$pattern'"
  # rg needs PCRE2 for what RE2 cannot run (ws: the ECMAScript engine).
  # It is timed as rg -P; its count is taken with --no-unicode, whose \w
  # and \d are ASCII's, as JavaScript's are (rg -P's \w takes 𝓤).
  P= U=
  if [[ $pattern =~ \(\?\<?[=!]|\\[1-9] ]]; then P=-P U=--no-unicode; fi
  if [ "$where" = log ]; then make_log; cd "$tree/log"; else cd "$srcdir"; fi
  if [ "$flags" = -c ]; then
    n_ws=$("$ws" grep -c "$pattern" | awk -F: '{s+=$NF} END {print s}')
    n_rg=$(rg $P $U -c "$pattern" | awk -F: '{s+=$NF} END {print s}')
  else
    n_ws=$("$ws" grep $flags "$pattern" | head -1 | cut -d' ' -f1)
    n_rg=$(rg $P $U -n $flags "$pattern" | wc -l)
    [ "$n_rg" -gt 1000 ] && n_rg=1000
  fi
  [ "$n_ws" = "$n_rg" ] || { echo "$class '$pattern': match counts differ: ws $n_ws, rg $n_rg" >&2; exit 1; }
  rgflags=${flags:--n}
  [ "$flags" = -i ] && rgflags=-ni
  rgflags="$rgflags${P:+ $P}"
  # The machine may be shared: time in ROUNDS short hyperfine runs, ws and rg
  # side by side in each, alternating which goes first, and take the median
  # of the rounds' ratios (load that comes and goes hits both alike).
  for r in $(seq 1 "${ROUNDS:-5}"); do
    if [ $((r % 2)) = 1 ]; then order=("$ws grep $flags $q" "rg $rgflags $q"); else order=("rg $rgflags $q" "$ws grep $flags $q"); fi
    hyperfine --warmup 2 --runs "${RUNS:-8}" -N --export-json "$out/grep-$r.json" "${order[@]}" >/dev/null 2>&1
  done
  python3 - "$out" "${ROUNDS:-5}" "$class" "$pattern" "$target" <<'PY'
import json, statistics, sys
out, rounds, cls, pat, target = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
wss, rgs, ratios = [], [], []
for r in range(1, rounds + 1):
    res = json.load(open(f"{out}/grep-{r}.json"))["results"]
    t = {("rg" if x["command"].startswith("rg ") else "ws"): x["median"] for x in res}
    wss.append(t["ws"]); rgs.append(t["rg"]); ratios.append(t["ws"] / t["rg"])
ratio = statistics.median(ratios)
ok = "ok" if ratio <= target else "OVER"
print(f"{cls:<20} {pat:<48} {statistics.median(wss)*1e3:9.1f} {statistics.median(rgs)*1e3:9.1f} {ratio:7.2f} <= {target} {ok}")
PY
done
