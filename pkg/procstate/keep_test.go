package procstate

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

func TestKeepRun(t *testing.T) {
	s := Open(t.TempDir())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &Record{PID: os.Getpid(), PGID: os.Getpid(), Command: "make test", Cwd: "/w", Root: "/w", Thread: "t1", StartedAt: at}
	x := &Exit{ExitCode: 2, EndedAt: at.Add(time.Second)}
	out := [2][]byte{[]byte("one\ntwo\nthree\n"), []byte("err\n")}
	if err := s.KeepRun(rec, x, out, [2]int64{0, 1 << 20}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Find("/w", os.Getpid())
	if err != nil || e == nil {
		t.Fatalf("Find: %v %v", e, err)
	}
	if e.Exit == nil || e.Exit.ExitCode != 2 || !e.Record.Foreground || e.Record.PGID != 0 || e.Record.SupervisorPID != 0 {
		t.Errorf("kept record %+v, exit %+v", e.Record, e.Exit)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(e.Record.ID), exitRoomName)); err == nil {
		t.Error("an ended record keeps room for an exit")
	}
	for i, want := range []struct {
		data    string
		dropped int64
	}{{"one\ntwo\nthree\n", 0}, {"err\n", 1 << 20}} {
		data, dropped, err := ReadLog(s.Dir(e.Record.ID), LogNames[i])
		if err != nil || string(data) != want.data || dropped != want.dropped {
			t.Errorf("%s: %q, %d dropped, %v; want %q, %d", LogNames[i], data, dropped, err, want.data, want.dropped)
		}
	}
	tail, err := ReadLogTail(s.Dir(e.Record.ID), "stdout.log", 0, 2)
	if err != nil || string(tail.Data) != "two\nthree\n" || tail.Lines != 3 {
		t.Errorf("tail: %+v %v", tail, err)
	}
	// Its pid is this live process's: given this process's very start
	// time, the record still does not take it for its own.
	st, err := readStat(strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	e.Record.StartTime = st.start
	if e.Record.Running() || e.Record.Stopped() || e.Record.SupervisorRunning() {
		t.Error("a kept run is taken for a live process")
	}
}

func TestKeepRunPrunes(t *testing.T) {
	s := Open(t.TempDir())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// A background process's record, and another workspace's kept run,
	// are not counted.
	commitRecord(t, s, &Record{PID: 1, StartTime: 1, Root: "/w", StartedAt: at})
	keep := func(pid int, root string, at time.Time) {
		t.Helper()
		rec := &Record{PID: pid, Root: statefile.String(root), StartedAt: at}
		if err := s.KeepRun(rec, &Exit{}, [2][]byte{}, [2]int64{}); err != nil {
			t.Fatal(err)
		}
	}
	keep(2, "/other", at)
	for i := range KeptRuns + 3 {
		keep(100+i, "/w", at.Add(time.Duration(i)*time.Second))
	}
	// Under a test clock every run has the same time: the one just made
	// is never the one removed.
	keep(999, "/w", at)
	all, err := s.All()
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	others := 0
	for _, e := range all {
		switch {
		case e.Record.Foreground && e.Record.Root == "/w":
			kept = append(kept, e.Record.PID)
		default:
			others++
		}
	}
	want := []int{999, 104, 105, 106, 107, 108, 109, 110, 111, 112}
	if len(kept) != len(want) || others != 2 {
		t.Fatalf("kept %v and %d others, want %v and 2", kept, others, want)
	}
	for i := range want {
		if kept[i] != want[i] {
			t.Fatalf("kept %v, want %v", kept, want)
		}
	}
}
