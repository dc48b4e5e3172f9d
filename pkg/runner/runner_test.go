package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(script string) Cmd {
	return Cmd{Argv: []string{"/bin/sh", "-c", script}, Env: os.Environ()}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name           string
		cmd            Cmd
		stdout, stderr string
		truncated      bool
		wantErr        string
		maxSeconds     float64
	}{
		{name: "output", cmd: sh("echo out; echo err >&2"), stdout: "out\n", stderr: "err\n"},
		{name: "stdin", cmd: func() Cmd { c := sh("cat; echo"); c.Stdin = []byte(`{"a":1}`); return c }(), stdout: "{\"a\":1}\n"},
		{name: "big stdin nobody reads", cmd: func() Cmd { c := sh("exit 0"); c.Stdin = make([]byte, 1<<20); return c }()},
		{name: "no stdin", cmd: sh("cat"), stdout: ""},
		{name: "exit status", cmd: sh("echo bye; exit 3"), stdout: "bye\n", wantErr: "exit status 3"},
		{name: "signal", cmd: sh("kill -9 $$"), wantErr: "killed by signal 9 (killed)"},
		{name: "bounded", cmd: func() Cmd { c := sh("head -c 5000 /dev/zero | tr '\\0' x"); c.MaxOutput = 100; return c }(),
			stdout: strings.Repeat("x", 100), truncated: true},
		{name: "background child holding stdout", cmd: sh("echo before; sleep 3 & echo after"), stdout: "before\nafter\n", maxSeconds: 1},
		{name: "timeout kills the group", cmd: func() Cmd { c := sh("sleep 5 & sleep 5; echo never"); c.Timeout = 100 * time.Millisecond; return c }(),
			wantErr: "timed out after 100ms", maxSeconds: 1},
		{name: "missing program", cmd: Cmd{Argv: []string{"/nonexistent/prog"}}, wantErr: "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := Run(context.Background(), tt.cmd)
			if took := time.Since(start).Seconds(); tt.maxSeconds > 0 && took > tt.maxSeconds {
				t.Errorf("took %.2fs, want under %.2fs", took, tt.maxSeconds)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if res == nil {
				return
			}
			if string(res.Stdout) != tt.stdout || string(res.Stderr) != tt.stderr || res.Truncated != tt.truncated {
				t.Errorf("got stdout %q stderr %q truncated %v", res.Stdout, res.Stderr, res.Truncated)
			}
		})
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, sh("sleep 5"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("cancel took %v", took)
	}
	var ee *ExitError
	if _, err := Run(context.Background(), sh("exit 7")); !errors.As(err, &ee) || ee.Code != 7 {
		t.Errorf("ExitError %v", err)
	}
}

// TestRunKeepsLastOutput checks that output written right before the exit
// is never lost to the early close (run many times to catch a race).
func TestRunKeepsLastOutput(t *testing.T) {
	for i := 0; i < 50; i++ {
		res, err := Run(context.Background(), sh("sleep 2 & head -c 200000 /dev/zero | tr '\\0' y"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Stdout) != 200000 {
			t.Fatalf("run %d: got %d bytes, want 200000", i, len(res.Stdout))
		}
	}
}

func TestRepeats(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tt := range []struct {
		s, first syscall.Signal
		after    time.Duration
		want     bool
	}{
		{syscall.SIGTERM, syscall.SIGTERM, 0, true},
		{syscall.SIGTERM, syscall.SIGTERM, RepeatWindow - time.Millisecond, true},
		{syscall.SIGTERM, syscall.SIGTERM, RepeatWindow, false},
		{syscall.SIGINT, syscall.SIGTERM, time.Millisecond, false},
		{syscall.SIGTERM, 0, 0, false},
	} {
		if got := Repeats(tt.s, tt.first, t0, t0.Add(tt.after)); got != tt.want {
			t.Errorf("Repeats(%v, %v, +%v) = %v, want %v", tt.s, tt.first, tt.after, got, tt.want)
		}
	}
}

// TestStartError checks the plain words for a program that cannot start.
func TestStartError(t *testing.T) {
	dir := t.TempDir()
	plain := os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644)
	if plain != nil {
		t.Fatal(plain)
	}
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"relative, missing", []string{"./nonexist"}, "cannot start ./nonexist: no such file or directory (a relative program is found from the workspace root, where the command runs; give an absolute path)"},
		{"absolute, missing", []string{"/nonexist/x"}, "cannot start /nonexist/x: no such file or directory"},
		{"not in PATH", []string{"no-such-program-here"}, "cannot start no-such-program-here: no such program in PATH"},
		{"not executable", []string{"./plain"}, "cannot start ./plain: permission denied (a relative program is found from the workspace root, where the command runs; give an absolute path)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), Cmd{Argv: tt.argv, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Second})
			got := StartError(tt.argv[0], "the workspace root", err)
			if got == nil || got.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", got, tt.want)
			}
			if !errors.Is(got, err) {
				t.Errorf("the cause is lost: %v", got)
			}
		})
	}
	other := errors.New("exit status 3")
	if got := StartError("x", "the workspace root", other); got != other {
		t.Errorf("another error changed: %v", got)
	}
}
