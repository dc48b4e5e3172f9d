package procstate

import (
	"context"
	"io"
	"testing"
)

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
		if err := SendInput(context.Background(), dir, []byte("one\n")); err != nil {
			t.Fatal(err)
		}
		if err := SendInput(context.Background(), dir, []byte("two")); err != nil {
			t.Fatal(err)
		}
		relay.close()
		if s := <-got; s != "one\ntwo" {
			t.Fatalf("round %d: the command read %q", i, s)
		}
		r.Close()
		if err := SendInput(context.Background(), dir, []byte("late")); err != ErrStdinClosed {
			t.Fatalf("send after close: %v", err)
		}
	}
}

// TestSendInputWithoutPipe: a record directory without the FIFO.
func TestSendInputWithoutPipe(t *testing.T) {
	if err := SendInput(context.Background(), t.TempDir(), []byte("x")); err != ErrNoStdin {
		t.Fatalf("got %v", err)
	}
}
