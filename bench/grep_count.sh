#!/usr/bin/env bash
# ws grep against ripgrep where a search finds far more than it prints: a
# count (-c) of millions of matching lines, and the modes that stop early
# (-q, -l, -m 1, the 1000-match cap), on one big log (1 GB by default,
# SIZE_MB to change), on a tree of 200 files of 1 MB whose every line
# matches, and on a tree of 500 files of 860 KB with one hit each. Wall
# time from hyperfine (ws and rg side by side), peak memory from GNU
# time -v, and ws/rg for both. BEFORE=REV also times ws as built from
# that git revision, BEFORE_BIN=PATH a ws built before (one run each: an
# old build may take minutes).
# Before searches kept only what they print (ws at 7713f3d): -c over the
# 1 GB log's 28 M matching lines took 22 s and 5 GB; -q 98 s and 9 GB;
# the capped search 72 s and 10 GB; the tree with a hit a file 1.5 s and
# 700 MB.
# --jsonl of the tree's 8 M lines (every line a message, against rg
# --json) went through encoding/json before 2026-12-02: 6x slower.
#   bench/grep_count.sh     SIZE_MB=200 RUNS=5 bench/grep_count.sh     BEFORE=7713f3d bench/grep_count.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
for t in hyperfine rg python3 /usr/bin/time; do command -v $t >/dev/null || { echo "bench/grep_count.sh needs $t (apt-get install hyperfine ripgrep python3 time)" >&2; exit 1; }; done
mkdir -p bench/out
out="$repo/bench/out"
CGO_ENABLED=0 go build -o "$out/ws" .
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
before=${BEFORE_BIN:-} # or a ws built before
if [ -n "${BEFORE:-}" ]; then
  mkdir "$dir/before"
  git archive "$BEFORE" | tar -x -C "$dir/before"
  (cd "$dir/before" && CGO_ENABLED=0 go build -o "$out/ws-before" .)
  before="$out/ws-before"
fi
mb=${SIZE_MB:-1000}
mkdir "$dir/w" "$dir/w/tree" "$dir/w/hits"
{
  head -n $((mb * 700000 / 60)) < <(yes 'INFO 2026-12-01 request served in 12 ms from cache shard 7')
  echo 'ERROR the needle in the middle'
  head -n $((mb * 300000 / 18)) < <(yes 'INFO another line')
  echo 'ERROR a needle at the end'
} >"$dir/w/app.log"
head -n 40000 < <(yes 'INFO a line of the tree') >"$dir/w/tree/f000.log"
for i in $(seq 1 199); do cp "$dir/w/tree/f000.log" "$dir/w/tree/f$(printf %03d "$i").log"; done
{
  head -n 10000 < <(yes 'INFO a filler line of about forty bytes ok')
  echo 'ERROR needle'
  head -n 10000 < <(yes 'INFO a filler line of about forty bytes ok')
} >"$dir/w/hits/f000.log"
for i in $(seq 1 499); do cp "$dir/w/hits/f000.log" "$dir/w/hits/f$(printf %03d "$i").log"; done
export WS_STATE_DIR="$dir/state"
ws="$out/ws"
cd "$dir/w"
cat app.log tree/* hits/* >/dev/null # in the page cache for every run
# name;ws arguments;rg arguments (the same lines found)
cases=(
  'count every line;-c INFO app.log;-c INFO app.log'
  'count 2 lines;-c needle app.log;-c needle app.log'
  'count -v;-c -v INFO app.log;-c -v INFO app.log'
  'count a tree;-c INFO tree;-c INFO tree'
  '--jsonl a tree;--jsonl INFO tree;--json INFO tree'
  'a hit a file;needle hits;-n needle hits'
  '-q, first match;-q INFO app.log;-q INFO app.log'
  '-l, first match;-l INFO app.log;-l INFO app.log'
  '-m 1;-m 1 INFO app.log;-n -m 1 INFO app.log'
  'capped at 1000;INFO app.log;-n -m 1000 INFO app.log'
  '-v -m 1;-v -m 1 INFO app.log;-n -v -m 1 INFO app.log'
)
# peak is the maximum resident set size of a command, in MB.
peak() {
  /usr/bin/time -v -o "$dir/tv" "$@" >/dev/null 2>&1 || true
  awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$dir/tv"
}
echo "one file of $(wc -c <app.log) bytes ($(wc -l <app.log) lines), a tree of 200 files of 1 MB, one of 500 files of 860 KB; medians of ${RUNS:-3} runs"
printf '%-18s %9s %9s %7s %8s %8s %7s' case 'ws s' 'rg s' ws/rg 'ws MB' 'rg MB' ws/rg
[ -n "$before" ] && printf ' %10s %10s' 'before s' 'before MB'
echo
for c in "${cases[@]}"; do
  IFS=';' read -r name wsargs rgargs <<<"$c"
  if [ "$(echo "$wsargs" | cut -c1-2)" = -c ]; then
    n_ws=$({ "$ws" grep $wsargs || true; } | awk -F: '{s+=$NF} END {print s}')
    n_rg=$({ rg $rgargs || true; } | awk -F: '{s+=$NF} END {print s}')
    [ "$n_ws" = "$n_rg" ] || { echo "$name: counts differ: ws $n_ws, rg $n_rg" >&2; exit 1; }
  fi
  hyperfine -N -i --warmup 1 --runs "${RUNS:-3}" --export-json "$out/count.json" "$ws grep $wsargs" "rg $rgargs" >/dev/null 2>&1
  b=""
  if [ -n "$before" ]; then
    hyperfine -N -i --runs 1 --export-json "$out/count-before.json" "$before grep $wsargs" >/dev/null 2>&1
    b="$out/count-before.json"
  fi
  python3 - "$out/count.json" "$name" "$(peak "$ws" grep $wsargs)" "$(peak rg $rgargs)" "$b" "$( [ -n "$before" ] && peak "$before" grep $wsargs)" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
name, wsmb, rgmb, bfile, bmb = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
ws, rg = res[0]["median"], res[1]["median"]
line = f"{name:<18} {ws:9.2f} {rg:9.2f} {ws/rg:7.2f} {wsmb:8.0f} {rgmb:8.0f} {wsmb/max(rgmb,1):7.2f}"
if bfile:
    line += f" {json.load(open(bfile))['results'][0]['median']:10.2f} {float(bmb):10.0f}"
print(line)
PY
done
