#!/usr/bin/env bash
# ws write of 200 MB from stdin (random bytes, and text), against dd copying
# the same file with bs=4M conv=fsync, in one hyperfine run (Debian package
# hyperfine). Both write a new file on the same disk and make it durable.
# Target: ws's throughput >= 0.7x dd's (ratio = dd time / ws time), stdin
# being the file itself, and a pipe (cat file | …) for both.
#   bench/write.sh            # RUNS=N to change the number of runs, MB=N the size
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
# On disk, not tmpfs: the comparison is with dd's fsync to the same disk.
work=$(mktemp -d -p "$PWD/bench/out")
trap 'rm -rf "$work"' EXIT
export WS_STATE_DIR="$work/state"
cd "$work"
mb=${MB:-200}
head -c "$((mb * 1000 * 1000))" /dev/urandom > random.bin
python3 - "$mb" <<'PY'
import random, sys
random.seed(1)
n, limit = 0, int(sys.argv[1]) * 1000 * 1000
lines = ["    value_%d = compute(%d, %r)\n" % (i, random.randint(0, 9999), "x" * random.randint(0, 40)) for i in range(10000)]
with open("text.txt", "w") as f:
    while n < limit:
        chunk = "".join(lines)
        f.write(chunk[: limit - n])
        n += min(len(chunk), limit - n)
PY
sync
hyperfine --warmup 1 --runs "${RUNS:-10}" --export-json "$OLDPWD/bench/out/write.json" \
  --prepare "rm -f out.bin dd.bin; sync" \
  "$ws write out.bin < random.bin" \
  "dd bs=4M conv=fsync status=none of=dd.bin < random.bin" \
  "cat random.bin | $ws write out.bin" \
  "cat random.bin | dd bs=4M conv=fsync status=none of=dd.bin" \
  "$ws write out.bin < text.txt" \
  "dd bs=4M conv=fsync status=none of=dd.bin < text.txt" \
  "cat text.txt | $ws write out.bin" \
  "cat text.txt | dd bs=4M conv=fsync status=none of=dd.bin" >/dev/null
python3 - "$OLDPWD/bench/out/write.json" "$mb" <<'PY'
import json, sys
r = [x["median"] for x in json.load(open(sys.argv[1]))["results"]]
mb = int(sys.argv[2])
for i, name in enumerate(("random", "text")):
    for j, how in enumerate(("stdin a file", "stdin a pipe")):
        ws, dd = r[4 * i + 2 * j], r[4 * i + 2 * j + 1]
        print(f"{name:6} {mb} MB, {how}: ws {ws*1e3:.0f} ms ({mb/ws:.0f} MB/s), dd {dd*1e3:.0f} ms ({mb/dd:.0f} MB/s), "
              f"throughput ws/dd = {dd/ws:.2f} (target >= 0.7)")
PY
