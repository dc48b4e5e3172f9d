#!/usr/bin/env bash
# ws index PATH (one document, as the index tool adds it) into an index of
# 10,000 files, as a whole process, with hyperfine (Debian package
# hyperfine). The files are a generated corpus (Zipf-distributed words,
# 40-400 words each, bench_corpus in bench/lib.sh) indexed through
# autoIndexPaths. A document added goes to the index's journal, so its
# cost follows the document, not the 40 MB index; the first search after it
# takes the journal in (one rewrite for any number of added documents).
# Target: one document < 10% of a rewrite of the index.
#   bench/index.sh            (DOCS=N to change the corpus size)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
bench_corpus "$tree/root/docs" "${DOCS:-10000}"
cd "$tree/root"
echo '{"bm25":true,"autoIndexPaths":["docs"]}' > "$tree/config.json"
export WS_STATE_DIR="$tree/state" WS_CONFIG="$tree/config.json"
"$ws" index --auto
echo "index file: $(du -h "$tree/state/search/index.bin" | cut -f1)"
doc="Password reset: go to settings, choose security, then reset the password."
# A rewrite of the index, for comparison: index --auto after touching one
# file reads that file again and writes the whole index.
hyperfine --warmup 2 --runs "${RUNS:-20}" -N --export-json "$OLDPWD/bench/out/index.json" \
  "$ws index notes/faq --content '$doc'" \
  "$ws index --auto" \
  --prepare "touch $tree/root/docs/00/doc00000.md" >/dev/null
python3 - "$OLDPWD/bench/out/index.json" <<'PY'
import json, sys
one, rewrite = (x["median"] for x in json.load(open(sys.argv[1]))["results"])
print(f"median: ws index (one document) {one*1e3:.1f} ms, a rewrite of the index {rewrite*1e3:.0f} ms; one/rewrite = {one/rewrite:.2f} (target < 0.10)")
PY
