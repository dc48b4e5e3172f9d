package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
)

func TestFrames(t *testing.T) {
	var b bytes.Buffer
	fw := &frameWriter{w: &b}
	big := strings.Repeat("x", maxFrame+10)
	fw.frame(kindHeader, []byte(`{"args":["read"]}`))
	fw.data(kindStdin, []byte(big))
	fw.frame(kindStdinEOF, nil)
	br := bufio.NewReader(&b)
	var kinds []byte
	var data []byte
	for {
		k, p, err := readFrame(br)
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatal(err)
			}
			break
		}
		kinds = append(kinds, k)
		if k == kindStdin {
			data = append(data, p...)
		}
	}
	if string(kinds) != "HDDE" || string(data) != big {
		t.Fatalf("frames %q, %d bytes of data", kinds, len(data))
	}
	// A stream cut inside a frame is malformed, not a clean end.
	if _, _, err := readFrame(bufio.NewReader(strings.NewReader("D\x00\x00\x00\x05ab"))); err == nil {
		t.Fatal("a cut frame reads without error")
	}
}

func TestFindMarker(t *testing.T) {
	for _, tc := range []struct{ in, before, after string }{
		{in: marker + "rest", after: "rest"},
		{in: "Warning: added host\n" + marker + "rest", before: "Warning: added host\n", after: "rest"},
		{in: "\x00ws\x00" + marker + "x", before: "\x00ws\x00", after: "x"},
		{in: "sh: 1: ws: not found\n", before: "sh: 1: ws: not found\n"},
	} {
		var stderr bytes.Buffer
		r := &reply{stderr: &stderr}
		br := bufio.NewReader(strings.NewReader(tc.in))
		found := r.findMarker(br)
		rest, _ := br.ReadString(0)
		if tc.after != "" {
			if !found || stderr.String() != tc.before || rest != tc.after {
				t.Errorf("%q: found %v, passed on %q, left %q", tc.in, found, stderr.String(), rest)
			}
		} else if found || r.before.String() != tc.before {
			t.Errorf("%q: found %v, kept %q", tc.in, found, r.before.String())
		}
	}
}

// TestHeaderBytes: the command line crosses as it was typed, bytes that
// are not UTF-8 included (a file name, a command), and a header of text
// is written in the plain form an earlier ws reads.
func TestHeaderBytes(t *testing.T) {
	for _, h := range []Header{
		{Version: "v", Args: []string{"write", "n\xff\xfe.txt", "--content", "x"}},
		{Version: "v", Args: []string{"exec", "--", "echo \xff"}, Inputs: []string{"old\xfe.txt"}},
		{Version: "v", Args: []string{"--thread", "t\x80", "read", "a.txt"}, StdinTTY: true},
	} {
		data, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var got Header
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("%+q came back as %+q (%s)", h.Args, got.Args, data)
		}
	}
	data, err := json.Marshal(Header{Version: "v", Args: []string{"read", "a.txt"}, Inputs: []string{"f"}})
	if want := `{"version":"v","args":["read","a.txt"],"stdin_tty":false,"stdout_tty":false,"inputs":["f"]}`; err != nil || string(data) != want {
		t.Errorf("text header: %s, %v; want %s", data, err, want)
	}
}

// TestReplyWords: words that come where frames should (the transport's
// as the connection ends, a crash's) are kept whole for the message, and
// a flood of them is passed on as it comes.
func TestReplyWords(t *testing.T) {
	frames := func(kind byte, p string) string {
		var b bytes.Buffer
		(&frameWriter{w: &b}).frame(kind, []byte(p))
		return b.String()
	}
	flood := strings.Repeat("panic line\n", maxWords/10)
	for _, tc := range []struct {
		name, in, stderr, after string
		exit                    int
	}{
		{"ssh closed", marker + frames(kindStderr, "err\n") + "Connection to box closed by remote host.\n",
			"err\n", "Connection to box closed by remote host.\n", -1},
		{"short", marker + "bye", "", "bye", -1},
		{"flood", marker + flood, flood, flood[:maxWords], -1},
		{"after the status", marker + frames(kindExit, "3") + "late words\n", "", "late words\n", 3},
	} {
		var stderr bytes.Buffer
		r := &reply{stderr: &stderr}
		r.read(bufio.NewReader(strings.NewReader(tc.in)), &frameWriter{w: io.Discard}, nil)
		if !r.started || r.exit != tc.exit || stderr.String() != tc.stderr || r.after.String() != tc.after {
			t.Errorf("%s: started %v, exit %d, stderr %.40q, kept %.40q", tc.name, r.started, r.exit, stderr.String(), r.after.String())
		}
	}
}

// TestServeSignalBeforeStart: a signal the local ws passes on while the
// input files still cross (a large or endless file: ws upload /dev/zero)
// ends the session as the signal asks, before the command runs; it is
// not a malformed stream (before: "ws: remote session: remote: malformed
// frame: 'S' in a file", exit 1).
func TestServeSignalBeforeStart(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "v", Args: []string{"upload", "big"}, Inputs: []string{"big"}})
	for _, tc := range []struct {
		name   string
		frames func(fw *frameWriter)
		status int
	}{
		{"in a file", func(fw *frameWriter) {
			fw.frame(kindHeader, head)
			fw.data(kindFileData, bytes.Repeat([]byte("x"), 3*maxFrame))
			fw.frame(kindSignal, []byte{15})
			fw.data(kindFileData, []byte("more"))
		}, 143},
		{"before the header", func(fw *frameWriter) {
			fw.frame(kindSignal, []byte{2})
			fw.frame(kindHeader, head)
		}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in bytes.Buffer
			tc.frames(&frameWriter{w: &in})
			var out bytes.Buffer
			ran := false
			status := Serve(&in, &out, "v", func(*Session) int { ran = true; return 0 })
			r := &reply{stderr: io.Discard}
			var stderr bytes.Buffer
			r.stderr = &stderr
			r.read(bufio.NewReader(&out), &frameWriter{w: io.Discard}, nil)
			if status != tc.status || r.exit != tc.status || ran || stderr.Len() != 0 {
				t.Errorf("status %d (sent %d), ran %v, stderr %q; want %d, not run, nothing said", status, r.exit, ran, stderr.String(), tc.status)
			}
		})
	}
}

// TestLiveness: the link is silent once nothing came for longer than the
// limit while this side was ready to read; a write of ours that waits on a
// slow reader is not the link's silence, and the silence counts afresh
// when it ends.
func TestLiveness(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0
	l := newLiveness(func() time.Time { return now })
	at := func(d time.Duration) { now = t0.Add(d) }
	for _, step := range []struct {
		do     func()
		at     time.Duration
		silent bool
	}{
		{nil, 59 * time.Second, false},
		{nil, 61 * time.Second, true},
		{l.heard, 61 * time.Second, false},
		{nil, 122 * time.Second, true},
		{func() {
			release := l.hold()
			at(10 * time.Minute)
			if l.silent(time.Minute) {
				t.Error("silent while this side held its reads")
			}
			release()
		}, 10*time.Minute + 30*time.Second, false},
		{nil, 11*time.Minute + time.Second, true},
	} {
		if step.do != nil {
			step.do()
		}
		at(step.at)
		if got := l.silent(time.Minute); got != step.silent {
			t.Errorf("at +%v: silent %v, want %v", step.at, got, step.silent)
		}
	}
}

// TestServeSilentClient: a client that asked for a heartbeat and then went
// silent without closing (a dropped link) is a hangup: the command is
// stopped as when its terminal closes, and the server pinged meanwhile
// (before, the command ran on until the remote sshd noticed, hours later).
func TestServeSilentClient(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "v", Args: []string{"exec", "--", "sleep 600"}, HeartbeatMS: 20})
	in, client := io.Pipe()
	defer client.Close()
	go (&frameWriter{w: client}).frame(kindHeader, head)
	hup := make(chan struct{})
	var out bytes.Buffer
	var mu sync.Mutex
	status := serve(in, lockedWriter{&mu, &out}, "v", func(s *Session) int { return untilHangup(hup) }, func() { close(hup) })
	mu.Lock()
	defer mu.Unlock()
	r := &reply{stderr: io.Discard}
	pings := 0
	r.pinged = func() { pings++ }
	r.read(bufio.NewReader(&out), &frameWriter{w: io.Discard}, nil)
	if status != 129 || r.exit != 129 || pings == 0 {
		t.Errorf("status %d (sent %d), %d pings; want 129 after a hangup, pings", status, r.exit, pings)
	}
}

// lockedWriter serialises writes to w with mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestRunSilentServer: a server that pinged once and then went silent
// without closing (a dropped link) ends the call with a lost connection
// and the transport is ended (before, the local ws waited for it forever).
func TestRunSilentServer(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "silent.sh")
	os.WriteFile(script, []byte(`printf '\000ws-remote/1\000P\000\000\000\000' >&2; echo $$ > "$0.pid"; exec sleep 600`+"\n"), 0o755)
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Call{
			Target: Target{URL: "exec:sh silent.sh", Prefix: []string{"sh", script}},
			Open:   func(string) (io.ReadCloser, error) { return nil, os.ErrNotExist },
			Stdout: io.Discard, Stderr: io.Discard, Heartbeat: 20 * time.Millisecond,
		})
		done <- err
	}()
	select {
	case err := <-done:
		if errs.CodeOf(err) != errs.RemoteLost || !strings.HasSuffix(err.Error(), ": nothing came from there for 0.12 s: the link is down") {
			t.Fatalf("got %v; want a lost connection", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waits on a silent server")
	}
	wantTransportGone(t, script)
}

// TestStdinCredit: the server gives credit for what the command read, in
// quarter windows, and a client that keeps to it is never held; one that
// does not (an earlier ws) is held once a window is queued.
func TestStdinCredit(t *testing.T) {
	var paid []int
	q := newStdinQueue(func(n int) { paid = append(paid, n) })
	held := 0
	hold := func() func() { held++; return func() {} }
	chunk := bytes.Repeat([]byte("y"), maxFrame)
	for sent := 0; sent < stdinWindow; sent += maxFrame {
		q.push(chunk, hold)
	}
	if held != 0 {
		t.Fatalf("a client within its credit was held %d times", held)
	}
	got, err := io.ReadAll(io.LimitReader(q, stdinWindow/2+1))
	if err != nil || len(got) != stdinWindow/2+1 || !reflect.DeepEqual(paid, []int{stdinWindow / 4, stdinWindow / 4}) {
		t.Fatalf("read %d bytes (%v), paid %v; want two quarter windows", len(got), err, paid)
	}
	// Over the window: held until the command reads.
	for range 9 {
		q.push(chunk, hold)
	}
	waiting := make(chan struct{})
	pushed := make(chan struct{})
	go func() {
		q.push([]byte("more"), func() func() { close(waiting); return func() {} })
		close(pushed)
	}()
	select {
	case <-pushed:
		t.Fatal("a push over the window was not held")
	case <-waiting:
	}
	io.ReadFull(q, make([]byte, maxFrame))
	<-pushed
	q.end(io.EOF)
	rest, err := io.ReadAll(q)
	if err != nil || !bytes.HasSuffix(rest, []byte("ymore")) {
		t.Fatalf("the rest: %d bytes ending %q, %v", len(rest), rest[max(0, len(rest)-5):], err)
	}

	// The client waits for credit, and sends as much as it has.
	cr := newCredit()
	if n := cr.wait(maxFrame); n != maxFrame {
		t.Fatalf("before any credit: %d, want no bound", n)
	}
	cr.add(10)
	if n := cr.wait(maxFrame); n != 10 {
		t.Fatalf("with 10 of credit: %d", n)
	}
	cr.spend(10)
	woke := make(chan int)
	go func() { woke <- cr.wait(maxFrame) }()
	cr.add(maxFrame * 2)
	if n := <-woke; n != maxFrame {
		t.Fatalf("after more credit: %d", n)
	}
	cr.spend(maxFrame * 2)
	go func() { woke <- cr.wait(maxFrame) }()
	cr.close()
	if n := <-woke; n != 0 {
		t.Fatalf("after the session: %d", n)
	}
}

// TestDescribe: the transport's words in a message; words too long for
// one keep their end, where ssh says what went wrong (before, a changed
// host key was quoted as its banner of @ signs, cut before the verdict).
func TestDescribe(t *testing.T) {
	hostKey := `@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!
Someone could be eavesdropping on you right now (man-in-the-middle attack)!
It is also possible that a host key has just been changed.
The fingerprint for the ED25519 key sent by the remote host is
SHA256:9pHdzwSPtpHL0tsp/+VmNjpHfmY1ytOl7sxw0dhMlDY.
Please contact your system administrator.
Add correct host key in known_hosts to get rid of this message.
Offending ED25519 key in known_hosts:1
  remove with:
  ssh-keygen -f "known_hosts" -R "[box]:2222"
Host key for [box]:2222 has changed and you have requested strict checking.
Host key verification failed.
`
	long := strings.Repeat("é", 300) + " the end"
	for _, tc := range []struct {
		said, how string
		want      string
	}{
		{"", "exit status 255", "nothing on stderr (exit status 255)"},
		{"", "killed by signal 9", "nothing on stderr (killed by signal 9)"},
		{"ssh: connect to host box port 22: Connection refused\n", "exit status 255", "ssh: connect to host box port 22: Connection refused (exit status 255)"},
		{"a\n  b\tc", "", "a b c"},
		{hostKey, "exit status 255", `… SHA256:9pHdzwSPtpHL0tsp/+VmNjpHfmY1ytOl7sxw0dhMlDY. Please contact your system administrator. Add correct host key in known_hosts to get rid of this message. Offending ED25519 key in known_hosts:1 remove with: ssh-keygen -f "known_hosts" -R "[box]:2222" Host key for [box]:2222 has changed and you have requested strict checking. Host key verification failed. (exit status 255)`},
		{long, "", "…" + strings.Repeat("é", 194) + " the end"},
	} {
		got := describe(tc.said, tc.how)
		if got != tc.want {
			t.Errorf("describe(%.30q, %q) = %q, want %q", tc.said, tc.how, got, tc.want)
		}
		if !utf8.ValidString(got) || len(got) > maxSaid+len(" (exit status 255)") {
			t.Errorf("describe(%.30q): %d bytes, valid UTF-8 %v", tc.said, len(got), utf8.ValidString(got))
		}
	}
}

// TestNotFound: only a "not found" about ws itself means there is no ws
// there (before, a missing pod or home directory was taken for it, and
// the message said to install ws).
func TestNotFound(t *testing.T) {
	for _, tc := range []struct {
		said string
		want bool
	}{
		{"sh: 1: exec: ws: not found", true},
		{"bash: line 1: ws: command not found", true},
		{"env: 'ws': No such file or directory", true},
		{`OCI runtime exec failed: exec failed: unable to start container process: exec: "ws": executable file not found in $PATH: unknown`, true},
		{"Error: crun: executable file `ws` not found in $PATH: No such file or directory", true},
		{"sh: /opt/bin/ws: No such file or directory", true},
		{"Could not chdir to home directory /nonexistent: No such file or directory\nThis account is currently not available.", false},
		{`Error from server (NotFound): pods "agent-7" not found`, false},
		{"error: unable to upgrade connection: container not found (\"work\")", false},
		{"Error response from daemon: No such container: sandbox", false},
		{"ssh: Could not resolve hostname ws: Name or service not known", false},
	} {
		if got := notFound(tc.said); got != tc.want {
			t.Errorf("notFound(%q) = %v, want %v", tc.said, got, tc.want)
		}
	}
}

// TestSuspend: ^Z on the local ws tells the server before the process
// stops and again once it runs, and neither side takes the stop for
// silence (before, the heartbeat would have stopped the remote command of
// a ws left stopped for a minute).
func TestSuspend(t *testing.T) {
	var b bytes.Buffer
	fw := &frameWriter{w: &b}
	t0 := time.Unix(1000, 0)
	now := t0
	alive := newLiveness(func() time.Time { return now })
	stopped := false
	suspend(fw, alive, func() {
		stopped = true
		if b.String() != "Z\x00\x00\x00\x00" {
			t.Errorf("before the stop the server got %q, want a pause", b.String())
		}
		now = t0.Add(time.Hour)
		if alive.silent(time.Minute) {
			t.Error("the stop counts as silence")
		}
	})
	if !stopped || b.String() != "Z\x00\x00\x00\x00z\x00\x00\x00\x00" || alive.silent(time.Minute) {
		t.Errorf("stopped %v, frames %q, silent %v; want a pause, a resume, not silent", stopped, b.String(), alive.silent(time.Minute))
	}
}

// untilHangup is a command that runs until the session hangs up (hup
// closes): 129, as a shell killed by SIGHUP; 0 if none came in 30 s.
func untilHangup(hup <-chan struct{}) int {
	select {
	case <-hup:
		return 129
	case <-time.After(30 * time.Second):
		return 0
	}
}

// TestServePaused: while the client is stopped (^Z) its silence is no
// hangup; once it runs again, silence is.
func TestServePaused(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "v", Args: []string{"exec", "--", "sleep 600"}, HeartbeatMS: 20})
	in, client := io.Pipe()
	defer client.Close()
	cw := &frameWriter{w: client}
	go func() {
		cw.frame(kindHeader, head)
		cw.frame(kindPause, nil)
	}()
	hup := make(chan struct{})
	status := serve(in, io.Discard, "v", func(s *Session) int {
		select {
		case <-hup:
			return 1 // hung up while paused
		case <-time.After(time.Second): // 50 heartbeats
		}
		go cw.frame(kindResume, nil)
		return untilHangup(hup)
	}, func() { close(hup) })
	if status != 129 {
		t.Errorf("status %d; want 129: no hangup while paused (1), a hangup after (0 if none)", status)
	}
}

// TestServeVersion: another version there is a warning the caller reads
// from its own side (before: "ws here is version …", said of the remote).
func TestServeVersion(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "1.4.0", Args: []string{"read", "a.txt"}})
	var in, out bytes.Buffer
	(&frameWriter{w: &in}).frame(kindHeader, head)
	status := serve(&in, &out, "1.3.0", func(*Session) int { return 0 }, func() {})
	var stderr bytes.Buffer
	r := &reply{stderr: &stderr}
	r.read(bufio.NewReader(&out), &frameWriter{w: io.Discard}, nil)
	want := "ws: warning: the ws there is version 1.3.0, this one 1.4.0 ('ws remote install' copies this one there)\n"
	if status != 0 || stderr.String() != want {
		t.Errorf("status %d, stderr %q; want %q", status, stderr.String(), want)
	}
}

// TestRunSignalBeforeServer: a signal that comes before the server said a
// word (a transport that hangs before it runs ws) ends the call as the
// signal asks and ends the transport: nothing ran there yet. Before, it
// was sent on to a server that was not there, and a single SIGTERM
// (timeout(1)'s) left ws waiting for ever.
func TestRunSignalBeforeServer(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hang.sh")
	os.WriteFile(script, []byte(`echo $$ > "$0.pid"; exec cat >/dev/null`+"\n"), 0o755)
	sigc := make(chan os.Signal, 1)
	done := make(chan struct{})
	var code int
	var err error
	go func() {
		defer close(done)
		code, err = Run(context.Background(), Call{
			Target: Target{URL: "exec:sh hang.sh", Prefix: []string{"sh", script}},
			Open:   func(string) (io.ReadCloser, error) { return nil, os.ErrNotExist },
			Stdout: io.Discard, Stderr: io.Discard, Signals: sigc,
		})
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(script + ".pid"); err == nil {
			break
		}
	}
	sigc <- syscall.SIGTERM
	select {
	case <-done:
		if code != 143 || err != nil {
			t.Fatalf("Run = %d, %v; want 143 as if the signal had ended it", code, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run still waits on a transport that never ran ws, after SIGTERM")
	}
	wantTransportGone(t, script)
}

// TestRunTransportKilled: a transport killed from outside (the OOM killer,
// a kill -9) says nothing; the message says how it ended instead of
// "nothing on stderr" alone.
func TestRunTransportKilled(t *testing.T) {
	script := filepath.Join(t.TempDir(), "killed.sh")
	os.WriteFile(script, []byte(`printf '\000ws-remote/1\000P\000\000\000\000' >&2; kill -9 $$`+"\n"), 0o755)
	_, err := Run(context.Background(), Call{
		Target: Target{URL: "exec:sh killed.sh", Prefix: []string{"sh", script}},
		Open:   func(string) (io.ReadCloser, error) { return nil, os.ErrNotExist },
		Stdout: io.Discard, Stderr: io.Discard,
	})
	if errs.CodeOf(err) != errs.RemoteLost || !strings.HasSuffix(err.Error(), ": nothing on stderr (killed by signal 9)") {
		t.Fatalf("got %v; want a lost connection, killed by signal 9", err)
	}
}

// wantTransportGone fails the test unless the transport script, which
// wrote its pid next to itself, has ended.
func wantTransportGone(t *testing.T, script string) {
	t.Helper()
	pid, _ := os.ReadFile(script + ".pid")
	if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err != nil || syscall.Kill(n, 0) == nil {
		t.Errorf("the transport (pid %q) still runs", pid)
	}
}

// With whole lines, stdout is passed on a line at a time, what follows
// the last newline only once its line is whole, at flush, or past the
// bound; what the connection cut short is never passed on.
// TestOutWriterLongLine: a long line (the --json envelope of a command
// with much output) that comes in small writes is held at the cost of
// its bytes, not of its length at every write: each write searched all
// that was held for a newline, and a 50 MB envelope took 30 s of CPU to
// pass through. 2 MiB in 64-byte writes searched 32 GiB (50 s); now
// a few milliseconds, so the bound is far from both.
func TestOutWriterLongLine(t *testing.T) {
	var got bytes.Buffer
	o := &outWriter{w: &got, holdMax: maxHeldLine}
	piece := bytes.Repeat([]byte("y"), 64)
	start := time.Now()
	for range (2 << 20) / len(piece) {
		o.Write(piece)
	}
	o.Write([]byte("\n"))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 2 MiB line in 64-byte writes took %v", d)
	}
	if got.Len() != 2<<20+1 || len(o.held) != 0 {
		t.Errorf("passed on %d bytes, %d held; want the whole line", got.Len(), len(o.held))
	}
}

func TestOutWriterWholeLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		flush  bool
		want   string
	}{
		{"whole lines", []string{"a\nb\n"}, false, "a\nb\n"},
		{"a line in pieces", []string{`{"ok":`, `true}`, "\n"}, false, "{\"ok\":true}\n"},
		{"cut short", []string{"a\n", `{"ok":tr`}, false, "a\n"},
		{"ended: the last line is whole as it is", []string{"a\nb"}, true, "a\nb"},
		{"a line past the bound is passed on", []string{"0123456789", "ab"}, false, "0123456789ab"},
		{"then held again after its end", []string{"0123456789ab\ncd"}, false, "0123456789ab\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			o := &outWriter{w: &got, holdMax: 10}
			for _, w := range tc.writes {
				if n, err := o.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if tc.flush {
				o.flush()
			}
			if got.String() != tc.want {
				t.Fatalf("passed on %q, want %q", got.String(), tc.want)
			}
			if o.wrote != (tc.want != "") {
				t.Fatalf("wrote = %v", o.wrote)
			}
		})
	}
}
