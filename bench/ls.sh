#!/usr/bin/env bash
# ws ls --max-depth 100 on a generated tree of 100,000 files against
# `find | wc -l`, as whole processes, with hyperfine (Debian package
# hyperfine). Target: ws ls <= 1.5x find.
#   bench/ls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench/ls.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p bench/out
CGO_ENABLED=0 go build -o bench/out/ws . # static, as README builds it
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
# 100 top directories x 10 subdirectories x 100 files = 100,000 files.
python3 - "$tree/t" <<'PY'
import os, sys
root = sys.argv[1]
for a in range(100):
    for b in range(10):
        d = os.path.join(root, f"d{a:03d}", f"s{b}")
        os.makedirs(d)
        for c in range(100):
            open(os.path.join(d, f"f{c:03d}.txt"), "w").close()
PY
ws="$PWD/bench/out/ws"
export WS_STATE_DIR="$tree/state"
cd "$tree/t"
echo "entries: find $(find . | wc -l) (with .), ws: $("$ws" ls --max-depth 100 | tail -1)"
hyperfine --warmup 3 --runs "${RUNS:-20}" --export-json "$OLDPWD/bench/out/ls.json" \
  "$ws ls --max-depth 100" "find . | wc -l" >/dev/null
python3 - "$OLDPWD/bench/out/ls.json" <<'PY'
import json, sys
ws, find = (x["median"] for x in json.load(open(sys.argv[1]))["results"])
print(f"median: ws ls {ws*1e3:.1f} ms, find | wc -l {find*1e3:.1f} ms; ws/find = {ws/find:.2f} (target <= 1.5)")
PY
