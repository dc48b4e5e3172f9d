#!/usr/bin/env bash
# ws grep against ripgrep on one big log (1 GB by default, SIZE_MB to
# change), as whole processes: wall time and peak memory (GNU time's
# maximum resident set size) of a literal search with two hits, with
# context, and of rg. A file over 256 MiB is searched in windows, so ws's
# memory stays bounded whatever the file's size; before, it was read whole
# (1 GB file: 8.6 s and 2.1 GB of memory; after: 0.8 s and 50 MB).
#   bench/grep_big.sh        SIZE_MB=4000 bench/grep_big.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for t in rg /usr/bin/time; do command -v $t >/dev/null || { echo "bench/grep_big.sh needs $t (apt-get install ripgrep time)" >&2; exit 1; }; done
mkdir -p bench/out
CGO_ENABLED=0 go build -o bench/out/ws .
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mb=${SIZE_MB:-1000}
{
  head -c $((mb * 700000)) < <(yes 'INFO 2026-12-01 request served in 12 ms from cache shard 7')
  echo 'ERROR the needle in the middle'
  head -c $((mb * 300000)) < <(yes 'INFO another line')
  echo 'ERROR a needle at the end'
} >"$dir/app.log"
export WS_STATE_DIR="$dir/state"
ws="$PWD/bench/out/ws"
cd "$dir"
cat app.log >/dev/null # in the page cache for every run
run() {
  local name=$1
  shift
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$dir/t" "$@" >/dev/null
    cat "$dir/t"
  done | sort -n | sed -n 2p | { read -r s kb; printf '%-22s %6.2f s %8d KB\n' "$name" "$s" "$kb"; }
}
echo "one file of $(wc -c <app.log) bytes; median of 3 runs: wall time, peak memory"
run "ws grep needle" "$ws" grep needle app.log
run "ws grep -C 2 needle" "$ws" grep -C 2 needle app.log
run "rg -n needle" rg -n needle app.log
