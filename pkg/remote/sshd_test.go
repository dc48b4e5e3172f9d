package remote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/testfs"
)

// These tests run ws against a real OpenSSH server on 127.0.0.1 (Debian's
// openssh-server; CI installs it and sets WS_REQUIRE_SSHD=1): its own host
// key, a generated client key, a temporary authorized_keys and a high port,
// all in a temporary directory, running as the current user. Every command
// runs locally and through --remote (ssh:// and exec:ssh …), and the two
// outcomes must be the same.

// sshd is a running server and what a client needs to reach it.
type sshd struct {
	dir, port string
	config    string // the client's ssh config
	home      string // the remote HOME (sshd sets it)
	ws        string // the ws binary under test
}

func startSSHD(t *testing.T) *sshd {
	t.Helper()
	bin, err := exec.LookPath("sshd")
	if err != nil {
		bin = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("WS_REQUIRE_SSHD") == "1" {
			t.Fatalf("sshd not installed: %v", err)
		}
		t.Skip("sshd not installed (apt-get install openssh-server)")
	}
	if os.Geteuid() == 0 {
		// sshd run by root wants its privilege separation directory.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	s := &sshd{dir: dir, home: filepath.Join(dir, "home"), ws: buildWS(t, dir)}
	for _, key := range []string{"host", "client"} {
		run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, key))
	}
	copyFile(t, filepath.Join(dir, "client.pub"), filepath.Join(dir, "authorized_keys"))
	// The remote PATH holds only a few tools and where ws remote install
	// puts ws, so nothing outside the temporary directory is written to.
	tools := filepath.Join(dir, "tools")
	testfs.Mkdir(t, tools, filepath.Join(s.home, ".local", "bin"))
	for _, tool := range []string{"sh", "uname", "mkdir", "cat", "chmod", "mv", "rm", "sha256sum", "sleep", "echo", "env", "printf"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(tools, tool)); err != nil {
			t.Fatal(err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, s.port, _ = net.SplitHostPort(l.Addr().String())
	l.Close()
	testfs.Write(t, filepath.Join(dir, "sshd_config"), fmt.Sprintf(`Port %s
ListenAddress 127.0.0.1
HostKey %[2]s/host
AuthorizedKeysFile %[2]s/authorized_keys
PidFile %[2]s/sshd.pid
StrictModes no
UsePAM no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
SetEnv PATH=%[3]s/.local/bin:%[4]s HOME=%[3]s
LogLevel ERROR
`, s.port, dir, s.home, tools))
	hostKey, err := os.ReadFile(filepath.Join(dir, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(dir, "known_hosts"), fmt.Sprintf("[127.0.0.1]:%s %s", s.port, hostKey))
	s.config = filepath.Join(dir, "ssh_config")
	testfs.Write(t, s.config, fmt.Sprintf(`Host *
  IdentityFile %[1]s/client
  IdentitiesOnly yes
  UserKnownHostsFile %[1]s/known_hosts
  StrictHostKeyChecking yes
  User %[2]s
`, dir, u.Username))
	var log bytes.Buffer
	srv := exec.Command(bin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	srv.Stderr = &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
		if t.Failed() {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", "127.0.0.1:"+s.port)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// buildWS builds the ws under test, static, as a release is built.
func buildWS(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "local", "ws")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", out, "github.com/wstools/ws")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// outcome is what a ws command did.
type outcome struct {
	stdout, stderr string
	code           int
}

// normal is o with the workspace root (which upload and exec --json
// name) and durations written the same for every run.
func (o outcome) normal(root string) outcome {
	dur := regexp.MustCompile(`"duration_ms":\d+`)
	for _, s := range []*string{&o.stdout, &o.stderr} {
		*s = dur.ReplaceAllString(strings.ReplaceAll(*s, root, "$ROOT"), `"duration_ms":N`)
	}
	return o
}

// ws runs the ws under test in cwd with stdin and returns its outcome.
func (s *sshd) run(t *testing.T, cwd, stdin string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.ws, args...)
	cmd.Dir = cwd
	cmd.Env = s.env()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	o := outcome{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("ws %q: %v", args, err)
	}
	return o
}

func (s *sshd) env() []string {
	return append(os.Environ(), "WS_SSH_COMMAND=ssh -F "+s.config, "WS_REMOTE=", "WS_ROOT=", "WS_STATE_DIR=",
		"WS_THREAD=", "WS_CONFIG=", "XDG_STATE_HOME="+filepath.Join(s.dir, "state-local"))
}

// sshURL is the ssh:// target of the workspace root.
func (s *sshd) sshURL(root string) string { return "ssh://127.0.0.1:" + s.port + root }

// execPrefix is the exec: target that runs ws over ssh too.
func (s *sshd) execPrefix() string {
	return "exec:ssh -F " + s.config + " -p " + s.port + " 127.0.0.1"
}

func TestSSH(t *testing.T) {
	s := startSSHD(t)
	fixture := func(root string) {
		testfs.Mkdir(t, root)
		testfs.Write(t, filepath.Join(root, "a.txt"), "hello\nworld\n")
		testfs.Mkdir(t, filepath.Join(root, "src"))
		testfs.Write(t, filepath.Join(root, "src", "main.go"), "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n")
	}
	// The local files of the commands live in the client's directory,
	// named relatively: the remote side (whose directory is elsewhere)
	// can only have them from the session.
	client := filepath.Join(s.dir, "cwd")
	testfs.Mkdir(t, client)
	testfs.Write(t, filepath.Join(client, "old.txt"), "world")
	testfs.Write(t, filepath.Join(client, "new.txt"), "WORLD")
	testfs.Write(t, filepath.Join(client, "up.txt"), "an uploaded file\n")
	testfs.Write(t, filepath.Join(client, "edits.json"), `[{"old_string":"hello","new_string":"HELLO"}]`)
	testfs.Write(t, filepath.Join(client, "fix.patch"), "*** Begin Patch\n*** Update File: a.txt\n@@\n-bye\n+hi again\n*** End Patch\n")
	testfs.Write(t, filepath.Join(client, "messages.json"), `[{"role":"user","content":[{"type":"text","text":"see"},{"type":"file","data":"aGVsbG8K","mimeType":"text/plain","filename":"m.txt"}]}]`)

	t.Run("missing ws", func(t *testing.T) {
		fixture(filepath.Join(s.dir, "missing"))
		o := s.run(t, client, "", "--remote", s.sshURL(filepath.Join(s.dir, "missing")), "read", "a.txt")
		if o.code != 1 || !strings.Contains(o.stderr, "no ws there") ||
			!strings.Contains(o.stderr, "'ws remote install "+s.sshURL(filepath.Join(s.dir, "missing"))+"'") {
			t.Fatalf("no ws there: got %+v", o)
		}
		o = s.run(t, client, "", "--json", "--remote", s.execPrefix(), "exec", "--", "true")
		if o.code != 125 || !strings.Contains(o.stdout, `"code":"REMOTE_NO_WS"`) {
			t.Fatalf("exec with no ws there: got %+v", o)
		}
	})

	t.Run("install", func(t *testing.T) {
		dest := filepath.Join(s.home, ".local", "bin", "ws")
		o := s.run(t, client, "", "remote", "install", s.sshURL("/"))
		want := regexp.MustCompile(`^installed ws dev at ` + regexp.QuoteMeta(dest) + ` on ssh://127\.0\.0\.1:\d+/ \(sha256 [0-9a-f]{64}\)\n$`)
		if o.code != 0 || !want.MatchString(o.stdout) || o.stderr != "" {
			t.Fatalf("install: got %+v", o)
		}
		if !sameFile(t, s.ws, dest) {
			t.Fatalf("%s is not a copy of %s", dest, s.ws)
		}
		o = s.run(t, client, "", "remote", "install", s.sshURL("/"))
		if o.code != 0 || !strings.HasPrefix(o.stdout, "ws dev is already at "+dest+" on ") {
			t.Fatalf("second install: got %+v", o)
		}
	})

	t.Run("install exec", func(t *testing.T) {
		// Through exec:ssh (whose words ssh joins into a shell line): the
		// same ws is there already.
		o := s.run(t, client, "", "remote", "install", s.execPrefix())
		if o.code != 0 || !strings.HasPrefix(o.stdout, "ws dev is already at "+filepath.Join(s.home, ".local", "bin", "ws")+" on exec:ssh ") {
			t.Fatalf("install through exec:ssh: got %+v", o)
		}
		// Through env, a prefix that runs ws here with another HOME and PATH.
		home := filepath.Join(s.dir, "home2")
		testfs.Mkdir(t, filepath.Join(home, ".local", "bin"))
		prefix := "exec:env HOME=" + home + " PATH=" + filepath.Join(home, ".local", "bin") + ":" + filepath.Join(s.dir, "tools")
		o = s.run(t, client, "", "remote", "install", prefix)
		if o.code != 0 || !strings.HasPrefix(o.stdout, "installed ws dev at "+filepath.Join(home, ".local", "bin", "ws")+" on "+prefix) {
			t.Fatalf("install through env: got %+v", o)
		}
		fixture(filepath.Join(s.dir, "env"))
		o = s.run(t, client, "", "--remote", prefix, "--root", filepath.Join(s.dir, "env"), "read", "a.txt")
		if o.code != 0 || o.stdout != "a.txt (12 bytes)\n     1→hello\n     2→world\n" {
			t.Fatalf("read after install: got %+v", o)
		}
	})

	type step struct {
		name  string
		stdin string
		args  []string
	}
	steps := []step{
		{"read", "", []string{"read", "a.txt"}},
		{"read json", "", []string{"--json", "read", "a.txt", "--offset", "2"}},
		{"read missing", "", []string{"read", "nope.txt"}},
		{"usage", "", []string{"read"}},
		{"write stdin", "one\ntwo\n", []string{"write", "new.txt"}},
		{"write quoted", "", []string{"write", "sp ace.txt", "--content", "it's \"quoted\" $HOME; `x` \\n"}},
		{"write not utf-8", "", []string{"write", "n\xff\xfe.txt", "--content", "x\xff\n"}},
		{"read not utf-8", "", []string{"--json", "read", "n\xff\xfe.txt", "--encoding", "base64"}},
		{"exec not utf-8", "", []string{"--json", "exec", "--", "printf '%s\\n' \xff"}},
		{"write dash", "", []string{"write", "--content", "a\nb", "--", "-d $x 'q'\n.txt"}},
		{"edit", "", []string{"edit", "a.txt", "--old", "hello", "--new", "bye"}},
		{"edit files", "", []string{"edit", "a.txt", "--old-file", "old.txt", "--new-file", "new.txt"}},
		{"edit edits", "", []string{"edit", "src/main.go", "--edits", "edits.json"}},
		{"edit missing file", "", []string{"edit", "a.txt", "--old-file", "missing.txt", "--new", "x"}},
		{"edit edits stdin", `[{"old_string":"package main","new_string":"package app"}]`, []string{"edit", "src/main.go", "--edits", "-"}},
		{"patch file", "", []string{"patch", "fix.patch"}},
		{"patch stdin", "*** Begin Patch\n*** Add File: added.txt\n+added\n*** End Patch\n", []string{"patch"}},
		{"upload messages", "", []string{"upload", "--messages", "messages.json", "--json"}},
		{"exec", "", []string{"exec", "--", "echo out; echo err >&2; cat a.txt; exit 3"}},
		{"exec json", "", []string{"--json", "exec", "--", "printf 'x\\ty'"}},
		{"call", "", []string{"call", "mastra_workspace_read_file", `{"path":"a.txt"}`}},
		{"call stdin", `{"path":"c.txt","content":"C\n"}`, []string{"call", "mastra_workspace_write_file", "-"}},
		{"call invalid", "", []string{"call", "mastra_workspace_read_file", `{"path":"a.txt","offset":0}`}},
		{"upload", "", []string{"upload", "up.txt"}},
		{"upload stdin", "piped bytes", []string{"upload", "-", "--name", "p.txt"}},
		{"upload missing", "", []string{"upload", "missing.bin"}},
		{"grep", "", []string{"grep", "hello"}},
		{"ls", "", []string{"ls"}},
	}
	targets := []struct {
		name string
		args func(root string) []string
	}{
		{"ssh", func(root string) []string { return []string{"--remote", s.sshURL(root)} }},
		{"exec", func(root string) []string { return []string{"--remote", s.execPrefix(), "--root", root} }},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			local := filepath.Join(s.dir, tg.name+"-local")
			far := filepath.Join(s.dir, tg.name+"-remote")
			fixture(local)
			fixture(far)
			for _, st := range steps {
				want := s.run(t, client, st.stdin, append([]string{"--root", local}, st.args...)...).normal(local)
				got := s.run(t, client, st.stdin, append(tg.args(far), st.args...)...).normal(far)
				if got != want {
					t.Errorf("%s: remote and local differ\nremote: %+v\nlocal:  %+v", st.name, got, want)
				}
			}
			if a, b := tree(t, local), tree(t, far); a != b {
				t.Errorf("the workspaces differ\nremote:\n%s\nlocal:\n%s", b, a)
			}

			// A command that does not read stdin leaves it to the next one.
			script := `printf 'line1\nline2\n' | { "$WS" "$@" read a.txt >/dev/null; cat; }`
			for _, prefix := range [][]string{{"--root", local}, tg.args(far)} {
				cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, prefix...)...)
				cmd.Env = append(s.env(), "WS="+s.ws)
				cmd.Dir = client
				out, err := cmd.CombinedOutput()
				if err != nil || string(out) != "line1\nline2\n" {
					t.Errorf("stdin after ws %q: %q, %v", prefix, out, err)
				}
			}

			// A background process, its output and its end.
			bg := func(prefix []string) string {
				start := s.run(t, client, "", append(prefix, "exec", "--background", "--", "echo s1; echo e1 >&2; sleep 30")...)
				m := regexp.MustCompile(`^Started background process \(PID: (\d+)\)\n$`).FindStringSubmatch(start.stdout)
				if m == nil || start.code != 0 {
					t.Fatalf("background start: %+v", start)
				}
				pid := m[1]
				var out outcome
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					if out = s.run(t, client, "", append(prefix, "ps-output", pid)...); strings.Contains(out.stdout, "s1") && strings.Contains(out.stdout, "e1") {
						break
					}
				}
				kill := s.run(t, client, "", append(prefix, "kill", pid)...)
				after := s.run(t, client, "", append(prefix, "ps-output", pid, "--wait")...)
				return strings.ReplaceAll(fmt.Sprintf("%+v\n%+v\n%+v", out, kill, after), pid, "PID")
			}
			if a, b := bg([]string{"--root", local}), bg(tg.args(far)); a != b {
				t.Errorf("background: remote and local differ\nremote:\n%s\nlocal:\n%s", b, a)
			}

			// A signal to the local ws reaches the remote command.
			sig := func(prefix []string) outcome {
				started := filepath.Join(t.TempDir(), "started")
				cmd := exec.Command(s.ws, append(prefix, "exec", "--", "echo started; : > "+started+"; sleep 30")...)
				cmd.Env, cmd.Dir = s.env(), client
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Signal once the command runs (a loaded machine may take
				// seconds to get there), not after a fixed sleep.
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(started); err == nil {
						break
					}
				}
				time.Sleep(100 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGTERM)
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("ws %q did not end on SIGTERM", prefix)
				}
				return outcome{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
			}
			if a, b := sig([]string{"--root", local}), sig(tg.args(far)); a != b || a.code != 143 {
				t.Errorf("SIGTERM: remote and local differ (want 143)\nremote: %+v\nlocal:  %+v", b, a)
			}
		})
	}
}

// tree lists the files of root with their contents.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(&b, "%s %q\n", rel, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, to, string(data))
}
