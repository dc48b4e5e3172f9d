package procstate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLogKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	l, err := CreateLog(dir, "stdout.log", 100)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for i := range 60 {
		line := fmt.Sprintf("line %02d\n", i) // 8 bytes
		all.WriteString(line)
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got, dropped, err := ReadLog(dir, "stdout.log")
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) > 100 || len(got) < 50 {
		t.Fatalf("kept %d bytes, want between 50 and 100", len(got))
	}
	if !bytes.HasSuffix(all.Bytes(), got) {
		t.Fatalf("kept bytes are not the newest output: %q", got)
	}
	if dropped+int64(len(got)) != int64(all.Len()) {
		t.Fatalf("dropped %d + kept %d != written %d", dropped, len(got), all.Len())
	}
}

func TestLogSmall(t *testing.T) {
	dir := t.TempDir()
	l, _ := CreateLog(dir, "x.log", 1<<20)
	l.Write([]byte("hello\n"))
	l.Close()
	got, dropped, err := ReadLog(dir, "x.log")
	if err != nil || string(got) != "hello\n" || dropped != 0 {
		t.Fatalf("%q %d %v", got, dropped, err)
	}
	if got, _, err := ReadLog(dir, "missing.log"); err != nil || len(got) != 0 {
		t.Fatalf("missing log: %q %v", got, err)
	}
}

// TestReadLogFrom reads from every offset of a log that rotated (the
// first bytes dropped) and compares with ReadLog.
func TestReadLogFrom(t *testing.T) {
	dir := t.TempDir()
	l, err := CreateLog(dir, "out.log", 40)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for i := range 30 {
		line := []byte{byte('a' + i%26), '\n'}
		l.Write(line)
		all = append(all, line...)
	}
	l.Close()
	kept, dropped, err := ReadLog(dir, "out.log")
	if err != nil {
		t.Fatal(err)
	}
	if dropped == 0 || string(all[dropped:]) != string(kept) {
		t.Fatalf("setup: dropped %d, kept %q", dropped, kept)
	}
	for from := int64(0); from <= int64(len(all))+2; from++ {
		got, start, err := ReadLogFrom(dir, "out.log", from)
		if err != nil {
			t.Fatal(err)
		}
		wantStart := max(from, dropped)
		want := ""
		if wantStart < int64(len(all)) {
			want = string(all[wantStart:])
		}
		if start != wantStart || string(got) != want {
			t.Errorf("from %d: start %d %q, want %d %q", from, start, got, wantStart, want)
		}
	}
}

// ReadLogTail counts the lines it does not read from the log's line index
// (<name>.lines, kept by the writer): the counts are those of the whole
// kept stream, through rotations, while the log is written (the index
// lags) and once it is closed, and without an index (a log of an older
// ws, or a damaged index) they are counted by reading.
func TestReadLogTailLines(t *testing.T) {
	dir := t.TempDir()
	l, err := CreateLog(dir, "out.log", 3000)
	if err != nil {
		t.Fatal(err)
	}
	check := func(stage string) {
		t.Helper()
		all, dropped, err := ReadLog(dir, "out.log")
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []int64{0, dropped + 1, dropped + 700, dropped + int64(len(all)) - 5} {
			for _, n := range []int{1, 3, 40, 10000} {
				tail, err := ReadLogTail(dir, "out.log", from, n)
				if err != nil {
					t.Fatal(err)
				}
				rng := all[min(max(from-dropped, 0), int64(len(all))):]
				want := bytes.Count(rng, []byte("\n"))
				if len(rng) > 0 && rng[len(rng)-1] != '\n' {
					want++
				}
				if tail.Lines != want || !bytes.HasSuffix(rng, tail.Data) {
					t.Fatalf("%s: from %d, %d lines: got %d lines (%q…), want %d", stage, from, n, tail.Lines, tail.Data[:min(len(tail.Data), 20)], want)
				}
			}
		}
	}
	for i := range 2000 {
		fmt.Fprintf(l, "line %d %s\n", i, bytes.Repeat([]byte("y"), i%13))
		if i%97 == 0 {
			check(fmt.Sprintf("writing, line %d", i))
		}
	}
	l.Write([]byte("no newline at the end"))
	check("written, index behind")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.log.lines")); err != nil {
		t.Fatalf("no line index: %v", err)
	}
	check("closed")
	if err := os.WriteFile(filepath.Join(dir, "out.log.lines"), []byte("1 2 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("damaged index")
	if err := os.Remove(filepath.Join(dir, "out.log.lines")); err != nil {
		t.Fatal(err)
	}
	check("no index")
}

// TestReadLogFromDuringRotation reads a log while it is written and
// rotated: every read is a true piece of the stream, at its true offset
// (a read that opened the parts across a rotation took the older part of
// one state and the current part of the next, and returned bytes from the
// wrong places). The writer here is alive, however slow a loaded machine
// makes it: openLog must wait for each rotation to finish, never give up
// on it as on a writer killed mid-rotation (after rotationWait, 100 ms,
// which a descheduled writer can take, and the read then mixed states).
func TestReadLogFromDuringRotation(t *testing.T) {
	defer func(d time.Duration) { rotationWait = d }(rotationWait)
	rotationWait = 10 * time.Second
	dir := t.TempDir()
	l, err := CreateLog(dir, "out.log", 1024)
	if err != nil {
		t.Fatal(err)
	}
	// The byte at absolute offset i is byteAt(i), so any piece can be
	// checked against its offset.
	byteAt := func(i int64) byte { return byte('a' + i%23) }
	const total = 100000
	done := make(chan struct{})
	go func() {
		defer close(done)
		var off int64
		for off < total {
			p := make([]byte, 1+off%7)
			for k := range p {
				p[k] = byteAt(off + int64(k))
			}
			l.Write(p)
			off += int64(len(p))
		}
	}()
	bad := 0
	for reads := 0; ; reads++ {
		select {
		case <-done:
			l.Close()
			if bad > 0 {
				t.Fatalf("%d of %d reads returned bytes that are not the stream's at their offsets", bad, reads)
			}
			return
		default:
		}
		b, start, err := ReadLogFrom(dir, "out.log", 0)
		if err != nil {
			t.Fatal(err)
		}
		for k := range b {
			if b[k] != byteAt(start+int64(k)) {
				bad++
				break
			}
		}
	}
}
