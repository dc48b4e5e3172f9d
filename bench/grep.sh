#!/usr/bin/env bash
# ws grep against ripgrep and grep -rn on a copy of the Go source tree,
# as whole processes, side by side with hyperfine (Debian packages
# hyperfine and ripgrep). Prints the match counts (they must agree), the
# medians and the ws/rg ratio. Target: ws grep <= 1.5x rg.
#   bench/grep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for t in hyperfine rg; do command -v $t >/dev/null || { echo "bench/grep.sh needs $t (apt-get install hyperfine ripgrep)" >&2; exit 1; }; done
mkdir -p bench/out
go build -o bench/out/ws .
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -r "$(go env GOROOT)/src" "$tree/src"
cd "$tree/src"
export WS_STATE_DIR="$tree/state"
ws="$OLDPWD/bench/out/ws"
patterns=('ErrUnexpectedEOF' 'func \w+Context\(')
for p in "${patterns[@]}"; do
  n_ws=$("$ws" grep "$p" | head -1 | cut -d' ' -f1)
  n_rg=$(rg -n --no-messages "$p" | wc -l)
  n_grep=$(grep -rnIE "$(printf %s "$p" | sed 's/\\w/[[:alnum:]_]/g')" . | wc -l)
  echo "pattern '$p': matches ws=$n_ws rg=$n_rg grep=$n_grep"
  [ "$n_ws" = "$n_rg" ] || { echo "match counts differ" >&2; exit 1; }
  hyperfine --warmup 3 --runs "${RUNS:-20}" -N --export-json "$OLDPWD/bench/out/grep.json" \
    "$ws grep '$p'" "rg -n '$p'" "grep -rnIE '$(printf %s "$p" | sed 's/\\w/[[:alnum:]_]/g')' ." >/dev/null
  python3 - "$OLDPWD/bench/out/grep.json" "$p" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ws, rg, gr = (x["median"] for x in r)
print(f"  median: ws {ws*1e3:.1f} ms, rg {rg*1e3:.1f} ms, grep -rn {gr*1e3:.1f} ms; ws/rg = {ws/rg:.2f} (target <= 1.5)")
PY
done
