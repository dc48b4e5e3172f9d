#!/usr/bin/env bash
# ws edit on a 50 MB file, an exact match and a fallback (the old text
# given with other indentation), against reading and writing the same
# bytes (cat into a new file, then fsync it, as ws's atomic write does),
# as whole processes with hyperfine (Debian package hyperfine).
# Target: each edit <= 2x the read+write.
#   bench/edit.sh            # RUNS=N to change the number of runs
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
bench_tmpfs_work
# 50 MB of code-like lines, with one function near the end to edit.
python3 - <<'PY'
import random
random.seed(1)
with open("big.py", "w") as f:
    n = 0
    while n < 50 * 1000 * 1000:
        line = "    value_%d = compute(%d, %r)\n" % (n, random.randint(0, 9999), "x" * random.randint(0, 40))
        f.write(line)
        n += len(line)
    f.write("def target(a, b):\n    if a:\n        return a - b\n    return b\n")
PY
cp big.py pristine.py
exact="--old 'return a - b' --new 'return a + b'"
fallback="--old \$'def target(a, b):\n  if a:\n    return a - b' --new \$'def target(a, b):\n  if a:\n    return a + b'"
hyperfine --warmup 1 --runs "${RUNS:-10}" --export-json "$OLDPWD/bench/out/edit.json" \
  --prepare "cp pristine.py big.py && rm -rf $WS_STATE_DIR" \
  "bash -c \"$ws edit big.py $exact\"" \
  "bash -c \"$ws edit big.py $fallback\"" \
  'sh -c "cat big.py > copy.py && sync copy.py"' >/dev/null
python3 - "$OLDPWD/bench/out/edit.json" <<'PY'
import json, sys
exact, fallback, rw = (x["median"] for x in json.load(open(sys.argv[1]))["results"])
print(f"median: exact edit {exact*1e3:.0f} ms, fallback edit {fallback*1e3:.0f} ms, read+write {rw*1e3:.0f} ms")
print(f"exact/read+write = {exact/rw:.2f}, fallback/read+write = {fallback/rw:.2f} (target <= 2)")
PY
