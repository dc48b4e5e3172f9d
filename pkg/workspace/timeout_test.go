package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

// lateReader gives its content only once release is closed, ignoring
// any context (as a read from a pipe does), and closes drained when it
// has given its end.
type lateReader struct {
	release, drained chan struct{}
	data             []byte
}

func (r *lateReader) Read(p []byte) (int, error) {
	<-r.release
	if len(r.data) == 0 {
		close(r.drained)
		return 0, errors.New("read past the end") // never reached: the copy stops at EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		close(r.drained)
		return n, io.EOF
	}
	return n, nil
}

// A write whose content arrives after tools.operationTimeout fails with
// TIMEOUT, and then changes nothing even though the tool goes on running
// (as it does in ws mcp): the file keeps its old content, no temporary
// file stays, and its write lock is released for the next call.
func TestOperationTimeoutWriteChangesNothingLate(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.OperationTimeoutMs = 100
	w, root := newTestWorkspace(t, cfg, "f.txt")
	src := &lateReader{release: make(chan struct{}), drained: make(chan struct{}), data: []byte("late\n")}
	_, err := w.Run(context.Background(), WriteFile, WriteRequest{Path: "f.txt", Source: src})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Timeout {
		t.Fatalf("write with late content: %v, want TIMEOUT", err)
	}
	close(src.release)
	<-src.drained
	// The next write of the file waits for the first one's lock, so when
	// it is done the first has finished.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.Tools.OperationTimeoutMs = 0
	if _, err := w.Run(ctx, EditFile, EditRequest{Path: "f.txt", OldString: "content of f.txt", NewString: "edited"}); err != nil {
		t.Fatalf("edit after the timed-out write: %v (the late write landed?)", err)
	}
	got, err := os.ReadFile(filepath.Join(root, "f.txt"))
	must(t, err)
	if string(got) != "edited\n" {
		t.Fatalf("f.txt = %q, want %q", got, "edited\n")
	}
	left, _ := filepath.Glob(filepath.Join(root, ".ws-tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
