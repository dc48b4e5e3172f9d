#!/usr/bin/env bash
# Start-up cost of ws against fair baselines, as whole processes, with
# hyperfine (Debian package hyperfine): a bare cobra binary built here from
# the cobra version in go.mod; the same binary linking every dependency ws
# links (deps-hello); the bare one running `sh -c true` (cobra-exec); sh.
# Targets (medians): ws --version <= 1.3x the bare cobra --version;
# ws stat FILE <= 1.5x the bare cobra --version;
# ws exec -- true <= 1.5 ms over sh -c true.
# BEFORE=REV also times ws as built from that git revision, side by side.
#   bench/startup.sh            # RUNS=N (all rounds together), ROUNDS=N, BEFORE=REV
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench/startup.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p bench/out
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Both binaries are built the same way: static, no cgo. The hello is built
# from inside this module, so it links the very cobra and pflag ws links.
export CGO_ENABLED=0
go build -o bench/out/ws .
before=()
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before"
  git archive "$BEFORE" | tar -x -C "$work/before"
  (cd "$work/before" && go build -o "$OLDPWD/bench/out/ws-before" .)
  before=(-n 'ws-before --version' 'bench/out/ws-before --version'
    -n 'ws-before stat a.txt' 'bench/out/ws-before stat a.txt'
    -n 'ws-before exec -- true' 'bench/out/ws-before exec -- true')
fi
mkdir "$work/hello"
cat >"$work/hello/main.go" <<'GO'
// Command hello is the smallest cobra program: one root command with a
// version, as a floor for ws's start-up.
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "hello",
		Version:       "dev",
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.Println("hello")
			return nil
		},
	}
	if root.Execute() != nil {
		os.Exit(1)
	}
}
GO
go build -o bench/out/cobra-hello "$work/hello/main.go"

# A second floor: the same hello linking every package ws links except its
# own (each imported for its side effects, so each runs its init), which
# splits ws's start-up into what its dependencies cost and what ws adds.
mkdir "$work/deps"
{
  echo 'package main'
  echo 'import ('
  go list -deps . | grep -v -e '^github.com/wstools/ws' -e internal -e '^vendor/' -e '^runtime' -e '^unsafe$' \
    -e '^os$' -e '^github.com/spf13/cobra$' | sed 's/.*/\t_ "&"/'
  echo ')'
  sed -n '/^import (/,$p' "$work/hello/main.go" | sed 's/^package main$//'
} >"$work/deps/main.go"
go build -o bench/out/deps-hello "$work/deps/main.go"

# A floor for exec: the bare cobra hello that runs `sh -c true` the way any
# Go program captures a command (pipes for stdout and stderr, a process group
# of its own, wait). Its cost over sh is what any cobra binary pays to run
# a command, before ws does anything of its own.
mkdir "$work/exec"
cat >"$work/exec/main.go" <<'GO'
// Command hello-exec is the smallest cobra program that runs a command
// and captures its output, as a floor for ws exec.
package main

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "hello-exec",
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			var out, errb bytes.Buffer
			c := exec.Command("sh", "-c", args[0])
			c.Stdout, c.Stderr = &out, &errb
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			err := c.Run()
			os.Stdout.Write(out.Bytes())
			return err
		},
	}
	if root.Execute() != nil {
		os.Exit(1)
	}
}
GO
go build -o bench/out/cobra-exec "$work/exec/main.go"

mkdir "$work/root" "$work/state"
printf 'hello\nworld\n' >"$work/root/a.txt"
export WS_ROOT="$work/root" WS_STATE_DIR="$work/state"
bench/out/ws stat a.txt >/dev/null # fail early, not inside hyperfine
echo "binary sizes: ws $(wc -c <bench/out/ws) bytes, cobra-hello $(wc -c <bench/out/cobra-hello) bytes, deps-hello $(wc -c <bench/out/deps-hello) bytes"

# In rounds (ROUNDS, default 5, of RUNS/ROUNDS runs each): hyperfine runs
# one command's runs back to back, so a noisy spell on a shared machine
# lands on one command; each figure below is the median over the rounds of
# what that round measured.
rounds=${ROUNDS:-5}
for r in $(seq "$rounds"); do
  hyperfine -N --warmup "${WARMUP:-100}" --runs $(( ${RUNS:-1000} / rounds )) --export-json "bench/out/startup-$r.json" \
    -n 'cobra-hello --version' 'bench/out/cobra-hello --version' \
    -n 'deps-hello --version' 'bench/out/deps-hello --version' \
    -n 'ws --version' 'bench/out/ws --version' \
    -n 'ws stat a.txt' 'bench/out/ws stat a.txt' \
    -n 'sh -c true' 'sh -c true' \
    -n 'cobra-exec true' 'bench/out/cobra-exec true' \
    -n 'ws exec -- true' 'bench/out/ws exec -- true' "${before[@]}" >/dev/null
done

python3 - $(seq -f 'bench/out/startup-%g.json' "$rounds") <<'PY'
import json, statistics, sys
rounds = [{x["command"]: x["median"] * 1e3 for x in json.load(open(f))["results"]} for f in sys.argv[1:]]
def fig(f):
    return statistics.median(f(r) for r in rounds)
hello = lambda r: r["cobra-hello --version"]
print(f"{len(rounds)} rounds; medians over them:")
print("  " + ", ".join(f"{k} {fig(lambda r: r[k]):.2f} ms" for k in rounds[0]))
print(f"ws --version / cobra-hello --version = {fig(lambda r: r['ws --version'] / hello(r)):.2f} (target <= 1.3)")
print(f"ws stat a.txt / cobra-hello --version = {fig(lambda r: r['ws stat a.txt'] / hello(r)):.2f} (target <= 1.5)")
print(f"ws exec -- true - sh -c true = {fig(lambda r: r['ws exec -- true'] - r['sh -c true']):.2f} ms (target <= 1.5 ms)")
print(f"ws --version / deps-hello --version = {fig(lambda r: r['ws --version'] / r['deps-hello --version']):.2f}"
      f" (dependencies' init {fig(lambda r: r['deps-hello --version'] - hello(r)):.2f} ms, ws itself {fig(lambda r: r['ws --version'] - r['deps-hello --version']):.2f} ms)")
print(f"cobra-exec true - sh -c true = {fig(lambda r: r['cobra-exec true'] - r['sh -c true']):.2f} ms (what any cobra binary pays to run sh -c true)")
print(f"ws exec -- true - cobra-exec true = {fig(lambda r: r['ws exec -- true'] - r['cobra-exec true']):.2f} ms"
      f" (of which ws's start-up over cobra-hello {fig(lambda r: r['ws --version'] - hello(r)):.2f} ms)")
if "ws-before --version" in rounds[0]:
    for c in ("--version", "stat a.txt", "exec -- true"):
        print(f"ws {c}: {fig(lambda r: r['ws-before ' + c]):.2f} ms before, {fig(lambda r: r['ws ' + c]):.2f} ms now"
              f" ({fig(lambda r: r['ws ' + c] / r['ws-before ' + c]):.2f}x)")
PY
