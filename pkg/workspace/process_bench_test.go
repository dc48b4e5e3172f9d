package workspace

import (
	"bytes"
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/statefile"
)

// endedWithOutput records an ended background process of w (pid) whose
// stdout got size bytes of 44-byte lines through the supervisor's capped
// log, as a command that printed them would leave it.
func endedWithOutput(tb testing.TB, w *Workspace, pid int, size int64) string {
	chunk := bytes.Repeat([]byte("a line of output from a build, forty bytes\n"), 32<<10/44)
	return endedWith(tb, w, pid, procstate.DefaultLogCap, func(l *procstate.Log) {
		for n := int64(0); n < size; n += int64(len(chunk)) {
			_, err := l.Write(chunk[:min(int64(len(chunk)), size-n)])
			must(tb, err)
		}
	})
}

// endedWith records an ended background process of w (pid) whose stdout
// log (capped at logCap) got what write wrote, and returns its pid.
func endedWith(tb testing.TB, w *Workspace, pid int, logCap int64, write func(*procstate.Log)) string {
	tb.Helper()
	store := w.procStore()
	dir, err := store.NewDir()
	must(tb, err)
	for _, name := range []string{"stdout.log", "stderr.log"} {
		l, err := procstate.CreateLog(dir, name, logCap)
		must(tb, err)
		if name == "stdout.log" {
			write(l)
		}
		must(tb, l.Close())
	}
	rec := &procstate.Record{PID: pid, StartTime: 1, Command: "build", Root: statefile.String(w.fs.RealBase()), StartedAt: time.Now().UTC()}
	must(tb, store.Commit(dir, rec))
	must(tb, store.WriteExit(rec.ID, &procstate.Exit{EndedAt: time.Now().UTC()}))
	return strconv.Itoa(pid)
}

// BenchmarkProcessOutput100MB reads a process whose stdout was 100 MB
// (64 MiB kept): ps-output with the default tail, as an agent polls it.
func BenchmarkProcessOutput100MB(b *testing.B) {
	w, _ := newTestWorkspace(b, nil)
	pid := endedWithOutput(b, w, 4242, 100_000_000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid}); err != nil {
			b.Fatal(err)
		}
	}
}
