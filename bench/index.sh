#!/usr/bin/env bash
# ws index PATH (one document, as the index tool adds it) into an index of
# 10,000 files, as a whole process, with hyperfine (Debian package
# hyperfine). The files are a generated corpus (Zipf-distributed words,
# 40-400 words each, as bench/search.sh makes it) indexed through
# autoIndexPaths. A document added goes to the index's journal, so its
# cost follows the document, not the 40 MB index; the first search after it
# takes the journal in (one rewrite for any number of added documents).
# Target: one document < 10% of a rewrite of the index.
#   bench/index.sh            (DOCS=N to change the corpus size)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench/index.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p bench/out
CGO_ENABLED=0 go build -o bench/out/ws . # static, as README builds it
ws="$PWD/bench/out/ws"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
python3 - "$tree/root/docs" "${DOCS:-10000}" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
syll = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zu", "pe", "qua", "dor", "fen", "gil", "hap", "jes"]
vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 5))) for _ in range(12000)})
weights = [1 / (i + 1) for i in range(len(vocab))]
for i in range(n):
    d = os.path.join(out, f"{i // 1000:02d}")
    os.makedirs(d, exist_ok=True)
    words = rng.choices(vocab, weights, k=rng.randint(40, 400))
    lines = [" ".join(words[j:j + 12]) for j in range(0, len(words), 12)]
    with open(os.path.join(d, f"doc{i:05d}.md"), "w") as f:
        f.write(f"# Document {i}\n" + "\n".join(lines) + "\n")
PY
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
