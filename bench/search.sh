#!/usr/bin/env bash
# ws search over 10,000 indexed documents, as a whole process, with
# hyperfine (Debian package hyperfine). The documents are files of a
# generated corpus (Zipf-distributed words, 40-400 words each) indexed
# through autoIndexPaths, so every search also checks all 10,000 files for
# changes (SPEC 16b). Prints the median per query. Target: < 50 ms.
# Then the same with an embedder: vector and hybrid search (see below).
#   bench/search.sh            (DOCS=N to change the corpus size)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
bench_corpus "$tree/root/docs" "${DOCS:-10000}" "$tree/root/queries.txt"
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

# Vector and hybrid search over the same 10,000 documents, with an
# embeddings endpoint on 127.0.0.1 (a small Python server answering the
# OpenAI format with deterministic DIM-dimensional vectors, default 768).
# The first indexing embeds every document; each search then embeds the
# query (one request) and scans all 10,000 vectors exactly.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$port" "${DIM:-768}" <<'PY' &
import hashlib, json, struct, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port, dim = int(sys.argv[1]), int(sys.argv[2])
def vec(text):
    out, i = [], 0
    while len(out) < dim:
        h = hashlib.sha256(f"{i}:{text}".encode()).digest()
        out.extend(x / 2**31 - 1 for x in struct.unpack("<8I", h))
        i += 1
    return out[:dim]
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"data": [{"index": i, "embedding": vec(t)} for i, t in enumerate(req["input"])]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tree"' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.1; done
echo "{\"bm25\":true,\"autoIndexPaths\":[\"docs\"],\"embedder\":{\"url\":\"http://127.0.0.1:$port/v1/embeddings\",\"model\":\"sha-${DIM:-768}\"}}" > "$tree/config.json"
start=$(date +%s.%N)
"$ws" index --auto >/dev/null
echo "embedding 10,000 documents: $(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')") s; vector file: $(du -h "$tree"/state/search/*.vectors | cut -f1)"
q=$(head -1 "$tree/root/queries.txt")
for mode in vector hybrid; do
  "$ws" search "$q" --mode $mode | tail -1
  hyperfine --warmup 3 --runs "${RUNS:-30}" -N --export-json "$OLDPWD/bench/out/search-$mode.json" "$ws search '$q' --mode $mode" >/dev/null
  python3 - "$OLDPWD/bench/out/search-$mode.json" "$mode" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  {sys.argv[2]} search: median {r['median']*1e3:.1f} ms (min {r['min']*1e3:.1f}, max {r['max']*1e3:.1f}); target < 50 ms")
PY
done
