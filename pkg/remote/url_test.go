package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Target
		err  string
	}{
		{in: "ssh://box", want: Target{SSH: true, Dest: "box"}},
		{in: "ssh://dev@box:2222/srv/work", want: Target{SSH: true, Dest: "dev@box", Port: "2222", Root: "/srv/work"}},
		{in: "ssh://box/", want: Target{SSH: true, Dest: "box", Root: "/"}},
		{in: "ssh://box/~/proj", want: Target{SSH: true, Dest: "box", Root: "proj"}},
		{in: "ssh://box/~", want: Target{SSH: true, Dest: "box", Root: "."}},
		{in: "ssh://[::1]:22/w", want: Target{SSH: true, Dest: "::1", Port: "22", Root: "/w"}},
		{in: "exec:docker exec -i sb7", want: Target{Prefix: []string{"docker", "exec", "-i", "sb7"}}},
		{in: "exec:  kubectl exec -i pod -c ctr --  ", want: Target{Prefix: []string{"kubectl", "exec", "-i", "pod", "-c", "ctr", "--"}}},
		{in: "exec:", err: "exec: needs the command"},
		{in: "box:/srv", err: "give ssh://"},
		{in: "ssh://", err: "no host"},
		{in: "ssh://-oProxyCommand=x/", err: "cannot start with -"},
		{in: "ssh://-l@box/", err: "a user cannot start with -"},
		{in: "ssh://u:pw@box/", err: "no password"},
		{in: "ssh://box/w?x=1", err: "no query"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %+v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		tc.want.URL = tc.in
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestCommand(t *testing.T) {
	ssh, _ := Parse("ssh://dev@box:2222/w")
	ex, _ := Parse("exec:docker exec -i sb")
	for _, tc := range []struct {
		t      Target
		sshCmd []string
		script string
		args   []string
		want   []string
	}{
		{t: ssh, want: []string{"ssh", "-T", "-e", "none", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-p", "2222", "--", "dev@box", `sh -c 'PATH="$PATH:$HOME/.local/bin" exec ws __remote' sh`}},
		{t: ssh, sshCmd: []string{"ssh", "-F", "cfg"}, script: "echo \"$1\"", args: []string{"it's"},
			want: []string{"ssh", "-F", "cfg", "-T", "-e", "none", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-p", "2222", "--", "dev@box", `sh -c 'echo "$1"' sh 'it'\''s'`}},
		{t: ex, want: []string{"docker", "exec", "-i", "sb", "ws", "__remote"}},
		{t: ex, script: "echo \"$1\"", args: []string{"a b"}, want: []string{"docker", "exec", "-i", "sb", "sh", "-c", "echo \"$1\"", "sh", "a b"}},
	} {
		if got := tc.t.Command(tc.sshCmd, tc.script, tc.args...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s Command(%q) = %q, want %q", tc.t.URL, tc.script, got, tc.want)
		}
	}
}

// TestRedact: messages name the target without the secrets given in it
// (before, every error and ws remote install repeated a kubectl --token
// or the password of an ssh URL it refused).
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ssh://dev@box:2222/w", "ssh://dev@box:2222/w"},
		{"ssh://dev:hunter2@box/w", "ssh://dev:xxxxx@box/w"},
		{"ssh://dev:hun%zz@box/w", "ssh://dev:xxxxx@box/w"},
		{"exec:docker exec -i sb", "exec:docker exec -i sb"},
		{"exec:kubectl --token=eyJhbGci exec -i pod --", "exec:kubectl --token=xxxxx exec -i pod --"},
		{"exec:kubectl --token eyJhbGci exec -i pod --", "exec:kubectl --token xxxxx exec -i pod --"},
		{"exec:env API_TOKEN=abc DB_PASSWORD=p ws", "exec:env API_TOKEN=xxxxx DB_PASSWORD=xxxxx ws"},
		{"exec:env PATH=/nonexistent", "exec:env PATH=/nonexistent"},
		{"exec:docker exec -e OPENAI_API_KEY=sk-1 -e GH_AUTH=g -i sb", "exec:docker exec -e OPENAI_API_KEY=xxxxx -e GH_AUTH=xxxxx -i sb"},
		{"exec:kubectl --auth-token t --client-key=k exec", "exec:kubectl --auth-token xxxxx --client-key=xxxxx exec"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tg, err := Parse(tc.in); err == nil && tg.URL != tc.want {
			t.Errorf("Parse(%q).URL = %q, want %q", tc.in, tg.URL, tc.want)
		} else if err != nil && strings.Contains(err.Error(), "hun") {
			t.Errorf("Parse(%q): %v shows the password", tc.in, err)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "  ssh  -F cfg ", want: []string{"ssh", "-F", "cfg"}},
		{in: `ssh -F '/Users/me/My Drive/cfg'`, want: []string{"ssh", "-F", "/Users/me/My Drive/cfg"}},
		{in: `ssh -o "ProxyCommand=nc -x \"p\" %h %p"`, want: []string{"ssh", "-o", `ProxyCommand=nc -x "p" %h %p`}},
		{in: `a\ b c\\d '' ""`, want: []string{"a b", `c\d`, "", ""}},
		{in: `x"y"'z'`, want: []string{"xyz"}},
		{in: `"a\b"`, want: []string{`a\b`}},
		{in: "'open", err: "' is not closed"},
		{in: `"open\"`, err: `" is not closed`},
	} {
		got, err := SplitWords(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SplitWords(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestRemoteLine: the line ssh hands to the remote user's login shell runs
// the same under every shell there (csh and tcsh, common on clusters, and
// fish, are not sh: csh cannot quote a newline and reads $PATH:$ as a
// modifier). Before, both the server's line and the install script's
// failed under tcsh. The shells that are not installed are skipped.
func TestRemoteLine(t *testing.T) {
	dir := t.TempDir()
	check := "set -e\nx='a b'\nfor i in 1 2; do echo \"$i $x $1\"; done\n" +
		"case $2 in *) echo \"${2%% *} 100%\";; esac\ntrap 'echo bye' EXIT\necho 'back\\slash'\n"
	want := "1 a b it's $HOME `x`\n2 a b it's $HOME `x`\nv1 100%\nback\\slash\nbye\n"
	tg := Target{SSH: true, Dest: "box"}
	ran := 0
	for _, shell := range []string{"sh", "bash", "dash", "zsh", "tcsh", "csh", "fish"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		ran++
		argv := tg.Command(nil, check, "it's $HOME `x`", "v1 sha")
		out, err := exec.Command(path, "-c", argv[len(argv)-1]).CombinedOutput()
		if err != nil || string(out) != want {
			t.Errorf("%s runs the script's line: %q, %v; want %q", shell, out, err, want)
		}
		// The server's line: ws from the PATH or ~/.local/bin (here a
		// script that says what it got).
		bin := filepath.Join(dir, ".local", "bin")
		os.MkdirAll(bin, 0o755)
		os.WriteFile(filepath.Join(bin, "ws"), []byte("#!/bin/sh\necho \"ws $*\"\n"), 0o755)
		argv = tg.Command(nil, "")
		cmd := exec.Command(path, "-c", argv[len(argv)-1])
		cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
		if out, err := cmd.CombinedOutput(); err != nil || string(out) != "ws __remote\n" {
			t.Errorf("%s runs the server's line: %q, %v", shell, out, err)
		}
		// The install script crosses whole (printed, not run).
		argv = tg.Command(nil, "cat <<'END'\n"+installScript+"END\n")
		if out, err := exec.Command(path, "-c", argv[len(argv)-1]).CombinedOutput(); err != nil || string(out) != installScript {
			t.Errorf("%s passes the install script on as %q, %v", shell, out, err)
		}
	}
	if ran == 0 {
		t.Skip("no shell found")
	}
}
