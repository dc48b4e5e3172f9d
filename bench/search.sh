#!/usr/bin/env bash
# ws search over 10,000 indexed documents, as a whole process, with
# hyperfine (Debian package hyperfine). The documents are files of a
# generated corpus (Zipf-distributed words, 40-400 words each) indexed
# through autoIndexPaths, so every search also checks all 10,000 files for
# changes (SPEC 16b). Prints the median per query. Target: < 50 ms.
#   bench/search.sh            (DOCS=N to change the corpus size)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench/search.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p bench/out
go build -o bench/out/ws .
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
with open(os.path.join(os.path.dirname(out), "queries.txt"), "w") as f:
    f.write(f"{vocab[3]} {vocab[50]}\n{vocab[2000]}\n{vocab[10]} {vocab[700]} {vocab[3000]}\n")
PY
cd "$tree/root"
echo '{"bm25":true,"autoIndexPaths":["docs"]}' > "$tree/config.json"
export WS_STATE_DIR="$tree/state" WS_CONFIG="$tree/config.json"
start=$(date +%s.%N)
"$ws" index --auto
echo "first indexing: $(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')") s; index file: $(du -h "$tree/state/search/index.bin" | cut -f1)"
i=0
while read -r q; do
  i=$((i + 1))
  "$ws" search "$q" --top-k 5 | tail -1
  hyperfine --warmup 3 --runs "${RUNS:-30}" -N --export-json "$OLDPWD/bench/out/search$i.json" "$ws search '$q'" >/dev/null
  python3 - "$OLDPWD/bench/out/search$i.json" "$q" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  query '{sys.argv[2]}': median {r['median']*1e3:.1f} ms (min {r['min']*1e3:.1f}, max {r['max']*1e3:.1f}); target < 50 ms")
PY
done < "$tree/root/queries.txt"
