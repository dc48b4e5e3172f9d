#!/usr/bin/env bash
# ws ls --max-depth 100 on a generated tree of 100,000 files against
# `find | wc -l`, as whole processes, with hyperfine (Debian package
# hyperfine). Target: ws ls <= 1.5x find.
#   bench/ls.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
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
export WS_STATE_DIR="$tree/state"
cd "$tree/t"
echo "entries: find $(find . | wc -l) (with .), ws: $("$ws" ls --max-depth 100 | tail -1)"
# In rounds (ROUNDS, default 5, alternating which goes first), each
# figure the median over the rounds: a noisy spell on a shared machine then
# lands on both commands of a round rather than on one.
rounds=${ROUNDS:-5}
for r in $(seq "$rounds"); do
  a="$ws ls --max-depth 100" b="find . | wc -l"
  [ $((r % 2)) = 0 ] && { t=$a; a=$b; b=$t; }
  hyperfine --warmup 3 --runs "${RUNS:-10}" --export-json "$OLDPWD/bench/out/ls-$r.json" "$a" "$b" >/dev/null
done
python3 - $(seq -f "$OLDPWD/bench/out/ls-%g.json" "$rounds") <<'PY'
import json, statistics, sys
rounds = []
for f in sys.argv[1:]:
    r = {x["command"].split()[0].rsplit("/", 1)[-1]: x["median"] for x in json.load(open(f))["results"]}
    rounds.append((r["ws"], r["find"]))
ws = statistics.median(w for w, _ in rounds)
find = statistics.median(f for _, f in rounds)
ratio = statistics.median(w / f for w, f in rounds)
print(f"{len(rounds)} rounds, medians: ws ls {ws*1e3:.1f} ms, find | wc -l {find*1e3:.1f} ms; ws/find = {ratio:.2f} (target <= 1.5)")
PY
