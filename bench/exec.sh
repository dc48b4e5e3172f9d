#!/usr/bin/env bash
# Overhead of `ws exec` over running the same command with sh, as whole
# processes, measured side by side with hyperfine (Debian package hyperfine).
# Target: `ws exec true` within 5 ms (median) of `sh -c true`.
#   bench/exec.sh            # builds ws into bench/out and runs the comparison
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WS_STATE_DIR="$work/state" WS_ROOT="$work"
hyperfine --warmup 20 --runs "${RUNS:-300}" -N --export-json bench/out/exec.json \
  'sh -c true' \
  'bench/out/ws exec -- true' \
  'bench/out/ws exec --background -- true'
python3 - bench/out/exec.json <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
sh = r["sh -c true"]["median"]
fg = r["bench/out/ws exec -- true"]["median"]
bg = r["bench/out/ws exec --background -- true"]["median"]
print(f"median: sh -c true {sh*1e3:.2f} ms; ws exec true {fg*1e3:.2f} ms; overhead {(fg-sh)*1e3:.2f} ms (target <= 5 ms)")
print(f"median: ws exec --background true {bg*1e3:.2f} ms (target < 50 ms)")
PY
