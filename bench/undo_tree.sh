#!/usr/bin/env bash
# ws delete -r of a tree of N small files (100 to a folder, 20-200 bytes
# each), its undo (the tree put back) and the redo (the undo undone: the
# tree deleted again), and the undo of a patch of N files (each put back
# at its path), for N = 1 000 and 10 000, in hyperfine runs
# (Debian package hyperfine). Each run starts from a fresh copy of the
# tree, made and synced in --prepare, so no run pays for another's writeback.
# On disk, not tmpfs: what is measured is what keeping the tree safe from a
# crash costs (fsync, syncfs), which tmpfs does not charge.
# BEFORE=REV also times ws as built from that git revision, side by side.
#   bench/undo_tree.sh          # RUNS=N runs each (3), SIZES="1000 10000", BEFORE=REV
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
bins=("$ws")
if [ -n "${BEFORE:-}" ]; then
  b=$(mktemp -d)
  git archive "$BEFORE" | tar -x -C "$b"
  (cd "$b" && CGO_ENABLED=0 go build -o "$OLDPWD/bench/out/ws-before" .)
  rm -rf "$b"
  bins=("$PWD/bench/out/ws-before" "$ws")
fi
work=$(mktemp -d -p "$PWD/bench/out")
trap 'rm -rf "$work"' EXIT
export WS_STATE_DIR="$work/state"
cd "$work"
for n in ${SIZES:-1000 10000}; do
  python3 - "src$n" "$n" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
for i in range(n):
    d = os.path.join(out, f"d{i // 100:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05d}.txt"), "w") as f:
        f.write("".join(rng.choice("abcdefgh \n") for _ in range(rng.randint(20, 200))))
with open(f"patch{n}", "w") as p:
    for i in range(n):
        rel = f"d{i // 100:03d}/f{i:05d}.txt"
        os.makedirs(os.path.dirname(f"pat{n}/{rel}"), exist_ok=True)
        with open(f"pat{n}/{rel}", "w") as f:
            f.write(f"old {i}\n")
        p.write(f"--- a/{rel}\n+++ b/{rel}\n@@ -1 +1 @@\n-old {i}\n+new {i}\n")
PY
done
sync
for bin in "${bins[@]}"; do
  name=$(basename "$bin")
  for n in ${SIZES:-1000 10000}; do
    fresh="rm -rf t $WS_STATE_DIR; cp -a src$n t"
    hyperfine --runs "${RUNS:-3}" --export-json "$OLDPWD/bench/out/undo_tree-$name-$n.json" \
      -n "$name delete -r ($n files)" --prepare "$fresh; sync" "$bin delete -r t" \
      -n "$name undo ($n files)" --prepare "$fresh; $bin delete -r t >/dev/null; sync" "$bin undo" \
      -n "$name redo ($n files)" --prepare "$fresh; $bin delete -r t >/dev/null; $bin undo >/dev/null; sync" "$bin undo" \
      -n "$name undo patch ($n files)" --prepare "rm -rf t $WS_STATE_DIR; cp -a pat$n t; cd t; $bin patch ../patch$n >/dev/null; cd ..; sync" "cd t; $bin undo" >/dev/null
    python3 - "$OLDPWD/bench/out/undo_tree-$name-$n.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']:32} median {r['median']:.3f} s (min {r['min']:.3f}, max {r['max']:.3f})")
PY
  done
done
# The tree undo put back is the tree that was deleted.
rm -rf t "$WS_STATE_DIR"; cp -a src1000 t
"$ws" delete -r t >/dev/null && "$ws" undo >/dev/null
diff -r src1000 t && echo "undo put back all of src1000"
