package procstate

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// KeptRuns is how many kept foreground runs (KeepRun) a workspace keeps:
// filing another removes the oldest beyond that.
const KeptRuns = 10

// KeepRun files a foreground command that has ended as a record of its
// own: its output (each stream with the bytes dropped from its start, as
// RunResult has them) as logs, its exit written at once, so that
// what the text of its run left out can be read afterwards, as a
// background process's is. rec needs PID, Command, Cwd, Root, Thread and
// StartedAt; KeepRun sets the rest, and the record's id. A pid has no
// start time once it is reaped: the one recorded is when the record was
// made (clock ticks after boot, as /proc gives them), which only names
// it. The records of root's kept runs beyond the newest KeptRuns are
// removed.
func (s *Store) KeepRun(rec *Record, x *Exit, out [2][]byte, dropped [2]int64) error {
	dir, err := s.NewDir()
	if err != nil {
		return err
	}
	rec.PGID, rec.SupervisorPID, rec.SupervisorStart = 0, 0, 0
	rec.Foreground, rec.BootID, rec.StartTime = true, BootID(), bootTicks()
	err = writeKeptLogs(dir, out, dropped)
	if err == nil {
		err = statefile.WriteJSON(filepath.Join(dir, "exit.json"), x)
	}
	if err == nil {
		err = s.commit(dir, rec)
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	s.pruneKept(rec)
	return nil
}

// writeKeptLogs writes the two streams as logs of one part each (a cap
// twice the size: no rotation), with the count of what was dropped.
func writeKeptLogs(dir string, out [2][]byte, dropped [2]int64) error {
	for i, name := range LogNames {
		l, err := CreateLog(dir, name, 2*int64(len(out[i]))+2)
		if err != nil {
			return err
		}
		if dropped[i] > 0 {
			l.dropped = dropped[i]
			err = os.WriteFile(filepath.Join(dir, name+".dropped"), strconv.AppendInt(nil, dropped[i], 10), 0o600)
		}
		if err == nil {
			_, err = l.Write(out[i])
		}
		if cerr := l.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pruneKept removes the records of the kept runs of rec's workspace but
// rec and the newest others, KeptRuns in all (a record it cannot read or
// remove is left).
func (s *Store) pruneKept(rec *Record) {
	found, _, err := s.load(func(name string) bool { return name != rec.ID })
	if err != nil {
		return
	}
	var others []*Entry
	for _, e := range found {
		if e.Record.Foreground && e.Record.Root == rec.Root {
			others = append(others, e)
		}
	}
	if len(others) < KeptRuns {
		return
	}
	sort.SliceStable(others, func(i, j int) bool { return others[i].Record.StartedAt.After(others[j].Record.StartedAt) })
	for _, e := range others[KeptRuns-1:] {
		_ = s.Remove(e.Record.ID)
	}
}

// bootTicks is the time since boot in clock ticks (USER_HZ, 100 a
// second), the unit of /proc/<pid>/stat's start time.
func bootTicks() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano() / 1e7)
}
