package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wstools/ws/pkg/errs"
)

// installScript runs on the target under sh: $1 is probe or copy, $2 the
// expected `ws __selfcheck` line (version and sha256), $3 the system and
// machine the binary is for (uname -sm). It picks the directory: the first
// writable one on the PATH under $HOME, else the first writable one on the
// PATH, else ~/.local/bin (which the ssh transport adds to the PATH). It
// prints answerLine, then one a line: "same" or "need" (probe), DIR/ws,
// "path" or "nopath", then another ws that comes first on the PATH, if
// there is one (copy: the same without the first). A copy is written
// beside its place, checked by running it (and with sha256sum when there
// is one), then renamed.
const installScript = `set -e
mode=$1 want=$2 sys=$3
got=$(uname -sm)
[ "$got" = "$sys" ] || { echo "the remote runs $got; this ws is built for $sys" >&2; exit 3; }
dir= any= on=path
IFS_=$IFS; IFS=:
for d in $PATH; do
  [ -n "$d" ] && [ -d "$d" ] && [ -w "$d" ] || continue
  case $d in "$HOME"/*) [ -n "$dir" ] || dir=$d ;; *) [ -n "$any" ] || any=$d ;; esac
done
IFS=$IFS_
[ -n "$dir" ] || dir=$any
[ -n "$dir" ] || { dir=$HOME/.local/bin; on=nopath; }
# first: another ws that a session runs instead (ssh adds ~/.local/bin
# after the PATH).
first() {
  f=$(PATH="$PATH:$HOME/.local/bin" command -v ws 2>/dev/null) || f=
  [ "$f" = "$dir/ws" ] || echo "$f"
}
# answer: the answer line, then its words one a line (a path may hold a
# space); what a login shell's startup file printed comes before it.
answer() { printf '%s\n' "` + answerLine + `" "$@"; }
if [ "$mode" = probe ]; then
  if [ -x "$dir/ws" ] && [ "$("$dir/ws" __selfcheck 2>/dev/null)" = "$want" ]; then answer same "$dir/ws" $on "$(first)"; else answer need "$dir/ws" $on; fi
  exit 0
fi
mkdir -p "$dir"
tmp=$dir/.ws-install.$$
trap 'rm -f "$tmp"' EXIT
cat >"$tmp"
chmod 755 "$tmp"
if command -v sha256sum >/dev/null 2>&1; then
  sum=$(sha256sum "$tmp"); sum=${sum%% *}
  [ "$sum" = "${want#* }" ] || { echo "the copy's sha256 is $sum, not ${want#* }" >&2; exit 4; }
fi
check=$("$tmp" __selfcheck) || { echo "the copy does not run there" >&2; exit 4; }
[ "$check" = "$want" ] || { echo "the copy says $check, not $want" >&2; exit 4; }
mv -f "$tmp" "$dir/ws"
trap - EXIT
answer "$dir/ws" $on "$(first)"
`

// answerLine starts the install script's answer.
const answerLine = "ws remote install:"

// answerOf is the install script's answer in out: its lines after the
// last answerLine.
func answerOf(out string) (string, bool) {
	i := strings.LastIndex("\n"+out, "\n"+answerLine+"\n")
	if i < 0 {
		return "", false
	}
	return out[i+len(answerLine)+1:], true
}

// Selfcheck is what `ws __selfcheck` prints for the binary at path: its
// version and sha256.
func Selfcheck(version, path string) (string, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return "", err
	}
	return version + " " + sum, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Installed says where `ws remote install` put ws.
type Installed struct {
	URL     string `json:"url"`
	Version string `json:"version"`
	Path    string `json:"path"` // on the target
	SHA256  string `json:"sha256"`
	// Already: the same ws was there; nothing was copied.
	Already bool `json:"already"`
	// OnPath: the directory is on the target's PATH (for ssh:// the
	// transport adds ~/.local/bin itself).
	OnPath bool `json:"on_path"`
	// ShadowedBy is another ws that comes first on the PATH there: the
	// one --remote runs.
	ShadowedBy string `json:"shadowed_by,omitempty"`
}

// Text says where ws is, and what to do when the exec: prefix cannot find
// it there.
func (r *Installed) Text() string {
	s := "installed ws " + r.Version + " at " + r.Path + " on " + r.URL + " (sha256 " + r.SHA256 + ")"
	if r.Already {
		s = "ws " + r.Version + " is already at " + r.Path + " on " + r.URL + " (sha256 " + r.SHA256 + ")"
	}
	if r.ShadowedBy != "" {
		s += "\nnote: --remote runs " + r.ShadowedBy + " there, which comes first on the PATH: remove it, or put " + filepath.Dir(r.Path) + " before it"
	}
	if !r.OnPath {
		s += "\nnote: " + filepath.Dir(r.Path) + " is not on the PATH there: add it, or put ws in a directory on it"
	}
	return s
}

// Install copies the binary at self (this ws, of version) to the target,
// unless the same one is there already.
func Install(ctx context.Context, t Target, ssh []string, self, version string) (Installed, error) {
	sum, err := fileSHA256(self)
	if err != nil {
		return Installed{}, err
	}
	want := version + " " + sum
	sys, err := unameOf(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return Installed{}, err
	}
	out, err := runScript(ctx, t, ssh, nil, "probe", want, sys)
	if err != nil {
		return Installed{}, err
	}
	answer, ok := answerOf(out)
	if !ok {
		return Installed{}, errs.CannotReach(t.URL, "unexpected answer: "+out, nil)
	}
	state, rest, _ := strings.Cut(answer, "\n")
	res := Installed{URL: t.URL, Version: version, SHA256: sum, Already: state == "same"}
	if state != "same" {
		bin, err := os.Open(self)
		if err != nil {
			return Installed{}, err
		}
		defer bin.Close()
		if out, err = runScript(ctx, t, ssh, bin, "copy", want, sys); err != nil {
			return Installed{}, err
		}
		if rest, ok = answerOf(out); !ok {
			return Installed{}, errs.CannotReach(t.URL, "unexpected answer: "+out, nil)
		}
	}
	words := strings.SplitN(rest, "\n", 3)
	if len(words) < 2 || !strings.HasPrefix(words[0], "/") {
		return Installed{}, errs.CannotReach(t.URL, "unexpected answer: "+out, nil)
	}
	path, on := words[0], words[1]
	if len(words) == 3 && words[2] != "" {
		res.ShadowedBy = words[2]
	}
	res.Path, res.OnPath = path, on == "path" || t.SSH && strings.HasSuffix(filepath.Dir(path), "/.local/bin")
	return res, nil
}

// unameOf is `uname -sm` of a Go platform ws can be built for.
func unameOf(goos, goarch string) (string, error) {
	machine := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "riscv64": "riscv64",
		"ppc64le": "ppc64le", "s390x": "s390x", "loong64": "loongarch64"}[goarch]
	if goos != "linux" || machine == "" {
		return "", fmt.Errorf("remote install copies a linux binary; this ws is for %s/%s", goos, goarch)
	}
	return "Linux " + machine, nil
}

// runScript runs installScript on the target with stdin and returns its
// output.
func runScript(ctx context.Context, t Target, ssh []string, stdin io.Reader, args ...string) (string, error) {
	quote := t.SSH || filepath.Base(t.Prefix[0]) == "ssh" // ssh joins words into a shell line
	argv := t.Command(ssh, installScript, args...)
	if !t.SSH && quote {
		argv = append(append([]string{}, t.Prefix...), shLine(installScript, args...))
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &stderr
	err := cmd.Run()
	said := strings.TrimSpace(stderr.String())
	if ctx.Err() != nil {
		// A signal (the cause names it), not the transport's failure.
		return "", errs.InterruptedBy(context.Cause(ctx), "installing ws on "+t.URL)
	}
	if err != nil {
		if said == "" {
			said = err.Error()
		}
		return "", errs.CannotReach(t.URL, "install: "+strings.Join(strings.Fields(said), " ")+sshHint(said), err)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}
