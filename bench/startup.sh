#!/usr/bin/env bash
# Start-up cost of ws against fair baselines, as whole processes, in one
# hyperfine run (Debian package hyperfine): a bare cobra binary built here
# from the cobra version in go.mod, and sh for exec.
# Targets (medians): ws --version <= 1.3x the bare cobra --version;
# ws stat FILE <= 1.5x the bare cobra --version;
# ws exec -- true <= 1.5 ms over sh -c true.
#   bench/startup.sh            # RUNS=N to change the number of runs
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

hyperfine -N --warmup "${WARMUP:-100}" --runs "${RUNS:-1000}" --export-json bench/out/startup.json \
  -n 'cobra-hello --version' 'bench/out/cobra-hello --version' \
  -n 'deps-hello --version' 'bench/out/deps-hello --version' \
  -n 'ws --version' 'bench/out/ws --version' \
  -n 'ws stat a.txt' 'bench/out/ws stat a.txt' \
  -n 'sh -c true' 'sh -c true' \
  -n 'cobra-exec true' 'bench/out/cobra-exec true' \
  -n 'ws exec -- true' 'bench/out/ws exec -- true'

python3 - bench/out/startup.json <<'PY'
import json, sys
r = {x["command"]: x["median"] * 1e3 for x in json.load(open(sys.argv[1]))["results"]}
hello, ver, stat = r["cobra-hello --version"], r["ws --version"], r["ws stat a.txt"]
sh, ex = r["sh -c true"], r["ws exec -- true"]
print("medians: " + ", ".join(f"{k} {v:.2f} ms" for k, v in r.items()))
print(f"ws --version / cobra-hello --version = {ver/hello:.2f} (target <= 1.3)")
print(f"ws stat a.txt / cobra-hello --version = {stat/hello:.2f} (target <= 1.5)")
print(f"ws exec -- true - sh -c true = {ex-sh:.2f} ms (target <= 1.5 ms)")
deps = r["deps-hello --version"]
print(f"of ws --version over cobra-hello: dependencies' init {deps-hello:.2f} ms, ws itself {ver-deps:.2f} ms")
cex = r["cobra-exec true"]
print(f"cobra-exec true - sh -c true = {cex-sh:.2f} ms (the floor of any cobra binary that runs sh)")
print(f"of ws exec over sh: start-up {ver-hello+cex-sh:.2f} ms as above plus cobra's floor, ws's exec itself {ex-cex-(ver-hello):.2f} ms")
PY
