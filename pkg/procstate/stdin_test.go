package procstate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

func send(dir, s string) error {
	_, err := SendInput(context.Background(), dir, strings.NewReader(s), 10*time.Second)
	return err
}

// relayed starts a stdin relay in a new directory; the returned reader is
// the command's stdin. Both are closed when the test ends.
func relayed(t *testing.T) (string, *stdinRelay, io.ReadCloser) {
	t.Helper()
	dir := t.TempDir()
	relay, r, err := openStdinRelay(dir)
	if err != nil {
		t.Fatal(err)
	}
	go relay.run()
	t.Cleanup(func() { r.Close(); relay.stop() })
	return dir, relay, r
}

// TestStdinRelayClose: what was sent before close reaches the command,
// however soon after the send the close comes, and then it reads EOF.
func TestStdinRelayClose(t *testing.T) {
	for i := range 200 {
		dir := t.TempDir()
		relay, r, err := openStdinRelay(dir)
		if err != nil {
			t.Fatal(err)
		}
		go relay.run()
		got := make(chan string, 1)
		go func() { b, _ := io.ReadAll(r); got <- string(b) }()
		if err := send(dir, "one\n"); err != nil {
			t.Fatal(err)
		}
		if err := send(dir, "two"); err != nil {
			t.Fatal(err)
		}
		relay.close()
		if s := <-got; s != "one\ntwo" {
			t.Fatalf("round %d: the command read %q", i, s)
		}
		r.Close()
		if err := send(dir, "late"); err != ErrStdinClosed {
			t.Fatalf("send after close: %v", err)
		}
	}
}

// TestStdinRelayReaderGone: a command that closes its stdin while it runs
// ends the relay by itself: the next send fails as closed (it was told
// its bytes went in, and they were lost).
func TestStdinRelayReaderGone(t *testing.T) {
	dir, _, r := relayed(t)
	if err := send(dir, "first\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "first\n" {
		t.Fatalf("the command read %q, %v", buf, err)
	}
	r.Close()
	// The relay notices within its poll; the bound is generous.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, StdinClosed)); err == nil {
			break
		}
	}
	if err := send(dir, "lost\n"); err != ErrStdinClosed {
		t.Fatalf("send after the command closed its stdin: %v, want ErrStdinClosed", err)
	}
}

// TestSendInputWithoutPipe: a record directory without the FIFO.
func TestSendInputWithoutPipe(t *testing.T) {
	if err := send(t.TempDir(), "x"); err != ErrNoStdin {
		t.Fatalf("got %v", err)
	}
}

// TestSendInputStalls: a command that does not read its stdin fails a
// large send once the pipes are full and the wait has passed, and the
// count says how much went in (the pipes' worth, not all, not nothing).
func TestSendInputStalls(t *testing.T) {
	dir, _, _ := relayed(t)
	const size = 4 << 20
	start := time.Now()
	n, err := SendInput(context.Background(), dir, bytes.NewReader(make([]byte, size)), 300*time.Millisecond)
	if !errors.Is(err, ErrStdinStalled) || n <= 0 || n >= size {
		t.Fatalf("send to a command that does not read: %d bytes, %v", n, err)
	}
	// Generous: a loaded machine is slow, but nothing waits for ever.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the stalled send took %v", d)
	}
}

// TestSendInputStreams: a stream is passed on as it comes, not read to
// its end first: the command answers the first line while the sender
// still holds the stream open.
func TestSendInputStreams(t *testing.T) {
	dir, relay, r := relayed(t)
	lines := make(chan string, 10)
	go func() {
		var buf [64]byte
		for {
			n, err := r.Read(buf[:])
			if n > 0 {
				lines <- string(buf[:n])
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	pr, pw := io.Pipe()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := SendInput(context.Background(), dir, pr, 10*time.Second)
		done <- result{n, err}
	}()
	pw.Write([]byte("one\n"))
	select {
	case got := <-lines:
		if got != "one\n" {
			t.Fatalf("first read: %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the first line was not passed on while the stream was open")
	}
	pw.Write([]byte("two\n"))
	pw.Close()
	res := <-done
	if res.err != nil || res.n != 8 {
		t.Fatalf("stream send: %d bytes, %v", res.n, res.err)
	}
	relay.close()
	var rest string
	for s := range lines {
		rest += s
	}
	if rest != "two\n" {
		t.Errorf("then the command read %q", rest)
	}
}

// TestSendInputNoInterleave: two sends at once, each larger than the
// pipes hold (so each takes many writes): one's bytes all come before
// the other's.
func TestSendInputNoInterleave(t *testing.T) {
	dir, relay, r := relayed(t)
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	const size = 512 << 10
	var wg sync.WaitGroup
	for _, c := range []byte("ab") {
		wg.Go(func() {
			if err := send(dir, strings.Repeat(string(c), size)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	relay.close()
	b := <-got
	a, bb := strings.Repeat("a", size), strings.Repeat("b", size)
	if s := string(b); s != a+bb && s != bb+a {
		t.Errorf("the sends mixed: %d bytes, 'a' then 'b' %d times", len(s), strings.Count(s, "ab")+strings.Count(s, "ba"))
	}
}

// TestSendInputBusy: a send waits for another send's lock at most its
// timeout; and a send whose source never ends stops when ctx ends.
func TestSendInputBusy(t *testing.T) {
	dir, _, _ := relayed(t)
	l, err := statefile.Acquire(filepath.Join(dir, StdinLock), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = SendInput(context.Background(), dir, strings.NewReader("x"), 200*time.Millisecond)
	l.Release()
	if err != ErrStdinBusy {
		t.Fatalf("send while another holds the lock: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	pr, pw := io.Pipe()
	defer pw.Close()
	if _, err := SendInput(ctx, dir, pr, 0); err != context.DeadlineExceeded {
		t.Fatalf("send of a stream that never ends, ctx ended: %v", err)
	}
}
