#!/usr/bin/env bash
# Throughput of `ws upload` (hash and copy in one pass into uploads/shared/, fsync, rename)
# against `sha256sum` of the same file, as whole processes, side by side with hyperfine
# (Debian package hyperfine). The file is read from the page cache in both; every ws run
# starts without the upload in place, so it really writes 1 GiB. The dedupe run uploads
# the same file again (the copy is hashed, compared with the file in place and dropped).
# Target: ws upload >= 0.9x sha256sum's throughput (median).
#   bench/upload.sh             # builds ws into bench/out, 1 GiB
#   SIZE_MIB=256 RUNS=3 bench/upload.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
size_mib=${SIZE_MIB:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/root"
head -c "$((size_mib << 20))" /dev/urandom > "$work/big.bin"
cat "$work/big.bin" > /dev/null # into the page cache
export WS_STATE_DIR="$work/state" WS_ROOT="$work/root"
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json bench/out/upload.json \
  --prepare "rm -rf '$work/root/uploads'; sync" \
  "sha256sum '$work/big.bin'" \
  "$ws upload --max-size 1TiB '$work/big.bin'"
"$ws" upload --max-size 1TiB "$work/big.bin" > /dev/null
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json bench/out/upload-dedupe.json \
  --prepare "sync" \
  "$ws upload --max-size 1TiB '$work/big.bin'"
python3 - bench/out/upload.json bench/out/upload-dedupe.json "$size_mib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
d = json.load(open(sys.argv[2]))["results"][0]
mib = int(sys.argv[3])
sha = next(x for x in r if x["command"].startswith("sha256sum"))["median"]
ws = next(x for x in r if "upload" in x["command"])["median"]
print(f"median over {mib} MiB: sha256sum {sha:.2f} s ({mib/sha:.0f} MiB/s); "
      f"ws upload {ws:.2f} s ({mib/ws:.0f} MiB/s); ratio {sha/ws:.2f}x sha256sum's throughput (target >= 0.9)")
print(f"median: ws upload of a file already in place {d['median']:.2f} s ({mib/d['median']:.0f} MiB/s)")
PY
