# Sourced by bench scripts, which stay runnable on their own:
#   . "$(dirname "$0")/lib.sh"
# It only defines functions; each script calls those it needs.

# bench_build moves to the repository root, checks for hyperfine and builds
# ws into bench/out (static, as README builds it); $ws is its path.
bench_build() {
  cd "$(dirname "$0")/.."
  command -v hyperfine >/dev/null || { echo "bench/$(basename "$0") needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
  mkdir -p bench/out
  CGO_ENABLED=0 go build -o bench/out/ws .
  ws="$PWD/bench/out/ws"
}

# bench_tmpfs_work makes $work, a temporary directory removed on exit, on
# tmpfs when there is one: the disk's writeback would drown what is measured.
# It points WS_STATE_DIR at $work/state and moves into $work ($OLDPWD is
# then the directory it was called in).
bench_tmpfs_work() {
  work=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
  trap 'rm -rf "$work"' EXIT
  export WS_STATE_DIR="$work/state"
  cd "$work"
}

# bench_corpus DIR N [QUERIES] writes N generated documents under DIR
# (Zipf-distributed words, 40-400 words each, 1,000 to a folder), the same
# for the same N; with QUERIES, also three queries of its words there, one
# a line.
bench_corpus() {
  python3 - "$@" <<'PY'
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
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        f.write(f"{vocab[3]} {vocab[50]}\n{vocab[2000]}\n{vocab[10]} {vocab[700]} {vocab[3000]}\n")
PY
}
