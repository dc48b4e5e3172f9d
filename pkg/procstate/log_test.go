package procstate

import (
	"bytes"
	"fmt"
	"testing"
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
