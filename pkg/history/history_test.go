package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// clock is a test clock that moves one second per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, opts Options) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "history")
	if opts.Now == nil {
		opts.Now = newClock().Now
	}
	return Open(dir, opts), dir
}

func key(name string) string { return "/ws/" + name }

// rec records one change of one file the way ws will: Begin before the
// write, Commit after it with the new content's fingerprint (nil new
// content: the file was deleted).
func rec(t *testing.T, s *Store, op Op, name string, before State, after []byte) *Entry {
	t.Helper()
	p, err := s.Begin(op, Change{Key: key(name), Path: name, Before: before})
	if err != nil {
		t.Fatal(err)
	}
	fp := AbsentFingerprint()
	if after != nil {
		fp = FileFingerprint(after, 1)
	}
	es, err := p.Commit(fp)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("commit gave %d entries", len(es))
	}
	return es[0]
}

func content(t *testing.T, s *Store, e *Entry) State {
	t.Helper()
	st, err := s.Content(e)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ops(es []*Entry) string {
	var b []string
	for _, e := range es {
		b = append(b, fmt.Sprintf("%s:%s", e.Op, e.Path))
	}
	return strings.Join(b, " ")
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return len(des)
}

func TestRecordListLast(t *testing.T) {
	type step struct {
		op     Op
		name   string
		before State
		after  []byte
	}
	tests := []struct {
		name  string
		steps []step
		// wantList is List("a.txt"), newest first: each entry's op and
		// path, and the content it replaced ("-" absent).
		wantList []string
		wantLast string // LastGroup, as ops
	}{
		{
			name: "create then edits",
			steps: []step{
				{OpWrite, "a.txt", AbsentState(), []byte("v1")},
				{OpEdit, "a.txt", FileState([]byte("v1"), 0o644, 10), []byte("v2")},
				{OpEdit, "a.txt", FileState([]byte("v2"), 0o644, 11), []byte("v3")},
			},
			wantList: []string{"edit:a.txt v2", "edit:a.txt v1", "write:a.txt -"},
			wantLast: "edit:a.txt",
		},
		{
			name: "other files do not mix in",
			steps: []step{
				{OpWrite, "a.txt", FileState([]byte("a0"), 0o600, 1), []byte("a1")},
				{OpWrite, "b.txt", FileState([]byte("b0"), 0o644, 1), []byte("b1")},
				{OpDelete, "a.txt", FileState([]byte("a1"), 0o600, 2), nil},
				{OpEdit, "b.txt", FileState([]byte("b1"), 0o644, 2), []byte("b2")},
			},
			wantList: []string{"delete:a.txt a1", "write:a.txt a0"},
			wantLast: "edit:b.txt",
		},
		{
			name: "same bytes twice",
			steps: []step{
				{OpWrite, "a.txt", FileState([]byte("same"), 0o644, 1), []byte("x")},
				{OpWrite, "a.txt", FileState([]byte("x"), 0o644, 2), []byte("same")},
				{OpWrite, "a.txt", FileState([]byte("same"), 0o644, 3), []byte("y")},
			},
			wantList: []string{"write:a.txt same", "write:a.txt x", "write:a.txt same"},
			wantLast: "write:a.txt",
		},
		{
			name: "nothing recorded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := open(t, Options{})
			var ids []string
			for _, st := range tt.steps {
				ids = append(ids, rec(t, s, st.op, st.name, st.before, st.after).ID)
			}
			if !slices.IsSorted(ids) {
				t.Errorf("ids not in order: %v", ids)
			}
			list, err := s.List(key("a.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range list {
				st := content(t, s, e)
				before := string(st.Data)
				if st.Kind == KindAbsent {
					before = "-"
				}
				got = append(got, fmt.Sprintf("%s:%s %s", e.Op, e.Path, before))
			}
			if !slices.Equal(got, tt.wantList) {
				t.Errorf("List = %q, want %q", got, tt.wantList)
			}
			last, err := s.Last(key("a.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(list) == 0 {
				if last != nil {
					t.Errorf("Last = %+v, want nil", last)
				}
			} else if last == nil || last.ID != list[0].ID {
				t.Errorf("Last = %+v, want %+v", last, list[0])
			}
			g, err := s.LastGroup()
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(g); got != tt.wantLast {
				t.Errorf("LastGroup = %q, want %q", got, tt.wantLast)
			}
			// Blobs are content addressed: one per distinct kept content.
			distinct := map[string]bool{}
			for _, st := range tt.steps {
				if st.before.Kind == KindFile {
					distinct[string(st.before.Data)] = true
				}
			}
			if n := countFiles(t, filepath.Join(dir, "blobs")); n != len(distinct) {
				t.Errorf("%d blobs, want %d", n, len(distinct))
			}
		})
	}
}

func TestEntryFields(t *testing.T) {
	s, _ := open(t, Options{})
	e := rec(t, s, OpEdit, "dir/a.txt", FileState([]byte("old"), 0o640, 42), []byte("new"))
	if e.Key != "/ws/dir/a.txt" || e.Path != "dir/a.txt" || e.Op != OpEdit || e.Time.Location() != time.UTC {
		t.Errorf("entry %+v", e)
	}
	want := Kept{Kind: KindFile, Mode: 0o640, Size: 3, MtimeNS: 42, SHA256: Sum([]byte("old"))}
	if e.Before != want {
		t.Errorf("Before = %+v, want %+v", e.Before, want)
	}
	if e.After != FileFingerprint([]byte("new"), 1) {
		t.Errorf("After = %+v", e.After)
	}
	st := content(t, s, e)
	if st.Mode != 0o640 || st.MtimeNS != 42 || string(st.Data) != "old" {
		t.Errorf("Content = %+v", st)
	}
	// A symbolic link keeps its target.
	e = rec(t, s, OpDelete, "link", SymlinkState("../target"), nil)
	if st := content(t, s, e); st.Kind != KindSymlink || st.Target != "../target" {
		t.Errorf("symlink Content = %+v", st)
	}
}

func TestGroups(t *testing.T) {
	s, _ := open(t, Options{})
	rec(t, s, OpWrite, "solo.txt", AbsentState(), []byte("solo"))
	changes := []Change{
		{Key: key("a"), Path: "a", Before: FileState([]byte("a0"), 0o644, 1)},
		{Key: key("b"), Path: "b", Before: AbsentState()},
		{Key: key("c"), Path: "c", Before: FileState([]byte("c0"), 0o644, 1)},
	}
	p, err := s.Begin(OpPatch, changes...)
	if err != nil {
		t.Fatal(err)
	}
	es, err := p.Commit(FileFingerprint([]byte("a1"), 2), FileFingerprint([]byte("b1"), 2), AbsentFingerprint())
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || es[0].ID != es[1].ID || es[1].ID != es[2].ID {
		t.Fatalf("group entries %+v", es)
	}
	g, err := s.LastGroup()
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(g); got != "patch:a patch:b patch:c" {
		t.Errorf("LastGroup = %q", got)
	}
	last, _ := s.Last(key("b"))
	g2, err := s.Group(last.ID)
	if err != nil || len(g2) != 3 {
		t.Errorf("Group(%s) = %v, %v", last.ID, g2, err)
	}
	if g, _ := s.Group("00000000000000000001"); g != nil {
		t.Errorf("Group of an unknown id = %v", g)
	}
	if g, _ := s.Group("../x"); g != nil {
		t.Errorf("Group of a bad id = %v", g)
	}

	// A patch that wrote only some files commits only those.
	p, err = s.Begin(OpPatch, changes...)
	if err != nil {
		t.Fatal(err)
	}
	es, err = p.Commit(Fingerprint{}, FileFingerprint([]byte("b2"), 3), Fingerprint{})
	if err != nil || ops(es) != "patch:b" {
		t.Fatalf("partial commit: %v %v", ops(es), err)
	}
	if _, err := p.Commit(AbsentFingerprint()); !errors.Is(err, ErrFinished) {
		t.Errorf("second Commit: %v", err)
	}
	// Nothing written at all: no entry.
	p, err = s.Begin(OpPatch, changes...)
	if err != nil {
		t.Fatal(err)
	}
	if es, err := p.Commit(Fingerprint{}, Fingerprint{}, Fingerprint{}); err != nil || es != nil {
		t.Fatalf("empty commit: %v %v", es, err)
	}
	if list, _ := s.List(key("b")); ops(list) != "patch:b patch:b" {
		t.Errorf("List(b) = %q", ops(list))
	}
	// The wrong number of fingerprints is refused.
	p, _ = s.Begin(OpPatch, changes...)
	if _, err := p.Commit(AbsentFingerprint()); err == nil {
		t.Error("Commit with one fingerprint for three files")
	}
	p.Abort()
}

func TestBeginRefuses(t *testing.T) {
	s, dir := open(t, Options{MaxEntryBytes: 10})
	file := FileState([]byte("x"), 0o644, 1)
	tests := []struct {
		name    string
		op      Op
		changes []Change
	}{
		{"unknown op", "rename", []Change{{Key: key("a"), Before: file}}},
		{"no files", OpWrite, nil},
		{"relative key", OpWrite, []Change{{Key: "a", Before: file}}},
		{"unclean key", OpWrite, []Change{{Key: "/ws/../a", Before: file}}},
		{"key twice", OpPatch, []Change{{Key: key("a"), Before: file}, {Key: key("a"), Before: file}}},
		{"bad undoes", OpUndo, []Change{{Key: key("a"), Before: file, Undoes: "x"}}},
		{"unknown kind", OpWrite, []Change{{Key: key("a"), Before: State{Kind: "fifo"}}}},
		{"size without data under the cap", OpWrite, []Change{{Key: key("a"), Before: State{Kind: KindFile, Size: 5}}}},
		{"size disagrees", OpWrite, []Change{{Key: key("a"), Before: State{Kind: KindFile, Size: 5, Data: []byte("x")}}}},
		{"link without target", OpWrite, []Change{{Key: key("a"), Before: State{Kind: KindSymlink}}}},
		{"tree path escapes", OpDelete, []Change{{Key: key("d"), Before: DirState(0o755, []Node{{Path: "../x", Kind: KindFile}})}}},
		{"tree path absolute", OpDelete, []Change{{Key: key("d"), Before: DirState(0o755, []Node{{Path: "/x", Kind: KindFile}})}}},
		{"tree path twice", OpDelete, []Change{{Key: key("d"), Before: DirState(0o755, []Node{{Path: "x", Kind: KindDir}, {Path: "x", Kind: KindDir}})}}},
		{"tree node kind", OpDelete, []Change{{Key: key("d"), Before: DirState(0o755, []Node{{Path: "x", Kind: KindAbsent}})}}},
		{"made dirs for a file that exists", OpWrite, []Change{{Key: key("a"), Before: file, MadeDirs: 1}}},
		{"negative made dirs", OpWrite, []Change{{Key: key("a"), Before: AbsentState(), MadeDirs: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := s.Begin(tt.op, tt.changes...); err == nil {
				p.Abort()
				t.Fatal("accepted")
			}
		})
	}
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files left", n)
	}
}

func TestAbsentBefore(t *testing.T) {
	// Undo of a create deletes the file: the previous state is "absent".
	s, _ := open(t, Options{})
	e := rec(t, s, OpWrite, "new.txt", AbsentState(), []byte("hello"))
	if e.Before != (Kept{Kind: KindAbsent}) {
		t.Errorf("Before = %+v", e.Before)
	}
	st := content(t, s, e)
	if st.Kind != KindAbsent || st.Data != nil {
		t.Errorf("Content = %+v", st)
	}
	if err := e.Check(FileFingerprint([]byte("hello"), 99)); err != nil {
		t.Errorf("unchanged file: %v", err)
	}
}

func TestMadeDirsKept(t *testing.T) {
	// The directories a create made travel with its entry, on disk.
	s, dir := open(t, Options{})
	p, err := s.Begin(OpWrite, Change{Key: key("a/b/new.txt"), Path: "a/b/new.txt", Before: AbsentState(), MadeDirs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(FileFingerprint([]byte("x"), 1)); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{}).Last(key("a/b/new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if e.MadeDirs != 2 {
		t.Errorf("MadeDirs = %d, want 2", e.MadeDirs)
	}
}

func TestTreeSnapshot(t *testing.T) {
	nodes := []Node{
		{Path: "sub/deep.txt", Kind: KindFile, Mode: 0o600, Data: []byte("deep")},
		{Path: "sub", Kind: KindDir, Mode: 0o700},
		{Path: "empty", Kind: KindDir, Mode: 0o755},
		{Path: "a.txt", Kind: KindFile, Mode: 0o644, Data: []byte("a")},
		{Path: "copy.txt", Kind: KindFile, Mode: 0o644, Data: []byte("a")},
		{Path: "zero", Kind: KindFile, Mode: 0o644, Data: []byte{}},
		{Path: "link", Kind: KindSymlink, Mode: fs.ModeSymlink | 0o777, Target: "sub/deep.txt"},
	}
	tests := []struct {
		name      string
		max       int64
		tooLarge  bool
		wantBlobs int // distinct file contents plus the manifest
	}{
		{"kept", 0, false, 4},
		{"too large", 8, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := open(t, Options{MaxEntryBytes: tt.max})
			before := DirState(0o755, nodes)
			e := rec(t, s, OpDelete, "d", before, nil)
			want := before.Fingerprint()
			if e.Before.Kind != KindDir || e.Before.Nodes != len(nodes) || e.Before.Size != 18 ||
				e.Before.SHA256 != want.SHA256 || e.Before.TooLarge != tt.tooLarge {
				t.Errorf("Before = %+v", e.Before)
			}
			if n := countFiles(t, filepath.Join(dir, "blobs")); n != tt.wantBlobs {
				t.Errorf("%d blobs, want %d", n, tt.wantBlobs)
			}
			st, err := s.Content(e)
			if tt.tooLarge {
				if !errors.Is(err, ErrTooLarge) {
					t.Errorf("Content: %v, want ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range st.Tree {
				got = append(got, fmt.Sprintf("%s %s %o %q %s", n.Path, n.Kind, n.Mode.Perm(), n.Data, n.Target))
			}
			wantTree := []string{
				`a.txt file 644 "a" `,
				`copy.txt file 644 "a" `,
				`empty dir 755 "" `,
				`link symlink 777 "" sub/deep.txt`,
				`sub dir 700 "" `,
				`sub/deep.txt file 600 "deep" `,
				`zero file 644 "" `,
			}
			if strings.Join(got, "\n") != strings.Join(wantTree, "\n") {
				t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantTree, "\n"))
			}
			if st.Mode != 0o755 || st.Fingerprint() != want {
				t.Errorf("restored tree mode %v fingerprint %+v, want %+v", st.Mode, st.Fingerprint(), want)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	s, dir := open(t, Options{MaxEntryBytes: 4, MaxTotalBytes: 10})
	// Over the per-entry cap: metadata only.
	e := rec(t, s, OpEdit, "big", FileState([]byte("12345"), 0o644, 7), []byte("x"))
	if !e.Before.TooLarge || e.Before.Size != 5 || e.Before.SHA256 != Sum([]byte("12345")) {
		t.Errorf("Before = %+v", e.Before)
	}
	if _, err := s.Content(e); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big (5 bytes) was too large to keep") {
		t.Errorf("Content: %v", err)
	}
	// A file the caller did not read, given by its size.
	e = rec(t, s, OpDelete, "huge", State{Kind: KindFile, Mode: 0o644, Size: 1 << 40, MtimeNS: 3}, nil)
	if !e.Before.TooLarge || e.Before.Size != 1<<40 || e.Before.SHA256 != "" {
		t.Errorf("Before = %+v", e.Before)
	}
	if n := countFiles(t, filepath.Join(dir, "blobs")); n != 0 {
		t.Errorf("%d blobs kept", n)
	}
	// A group keeps files until it would pass the total cap.
	p, err := s.Begin(OpPatch,
		Change{Key: key("a"), Path: "a", Before: FileState([]byte("aaaa"), 0o644, 1)},
		Change{Key: key("b"), Path: "b", Before: FileState([]byte("bbbb"), 0o644, 1)},
		Change{Key: key("c"), Path: "c", Before: FileState([]byte("cccc"), 0o644, 1)})
	if err != nil {
		t.Fatal(err)
	}
	es, err := p.Commit(AbsentFingerprint(), AbsentFingerprint(), AbsentFingerprint())
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Before.TooLarge || es[1].Before.TooLarge || !es[2].Before.TooLarge {
		t.Errorf("too large: %v %v %v", es[0].Before.TooLarge, es[1].Before.TooLarge, es[2].Before.TooLarge)
	}
}

func TestCaps(t *testing.T) {
	// Each step is one change; a change of several names is a group. The
	// content of a kept version is its name plus its step number, so each
	// is distinct unless the name ends with "=" (fixed content "same").
	tests := []struct {
		name      string
		opts      Options
		steps     [][]string
		wantIDs   []int // steps still kept, oldest first
		wantBlobs int
	}{
		{
			name:      "under the caps",
			opts:      Options{MaxEntries: 10, MaxTotalBytes: 100},
			steps:     [][]string{{"a"}, {"b"}, {"c"}},
			wantIDs:   []int{0, 1, 2},
			wantBlobs: 3,
		},
		{
			name:      "entry count",
			opts:      Options{MaxEntries: 2},
			steps:     [][]string{{"a"}, {"b"}, {"c"}, {"d"}},
			wantIDs:   []int{2, 3},
			wantBlobs: 2,
		},
		{
			name:      "count drops whole groups",
			opts:      Options{MaxEntries: 3},
			steps:     [][]string{{"a", "b"}, {"c"}, {"d", "e"}},
			wantIDs:   []int{1, 2},
			wantBlobs: 3,
		},
		{
			name: "total bytes",
			// "x0".."x3" are 10 bytes each (padded): three fit in 30.
			opts:      Options{MaxTotalBytes: 30},
			steps:     [][]string{{"x"}, {"x"}, {"x"}, {"x"}},
			wantIDs:   []int{1, 2, 3},
			wantBlobs: 3,
		},
		{
			name:      "total drops whole groups",
			opts:      Options{MaxTotalBytes: 30},
			steps:     [][]string{{"a", "b"}, {"c", "d"}},
			wantIDs:   []int{1},
			wantBlobs: 2,
		},
		{
			name: "shared blobs count once",
			// Four versions with the same bytes: 10 bytes in all.
			opts:      Options{MaxTotalBytes: 30},
			steps:     [][]string{{"s="}, {"t="}, {"u="}, {"v="}, {"w"}},
			wantIDs:   []int{0, 1, 2, 3, 4},
			wantBlobs: 2,
		},
		{
			name:      "the newest change stays over the count",
			opts:      Options{MaxEntries: 2},
			steps:     [][]string{{"a"}, {"b", "c", "d"}},
			wantIDs:   []int{1},
			wantBlobs: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := open(t, tt.opts)
			var ids []string
			for i, names := range tt.steps {
				var changes []Change
				var after []Fingerprint
				for _, n := range names {
					data := fmt.Sprintf("%-10s", fmt.Sprint(n, i))
					if strings.HasSuffix(n, "=") {
						data = fmt.Sprintf("%-10s", "same")
					}
					changes = append(changes, Change{Key: key(n), Path: n, Before: FileState([]byte(data), 0o644, 1)})
					after = append(after, AbsentFingerprint())
				}
				p, err := s.Begin(OpPatch, changes...)
				if err != nil {
					t.Fatal(err)
				}
				es, err := p.Commit(after...)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, es[0].ID)
			}
			var kept []int
			for i, id := range ids {
				g, err := s.Group(id)
				if err != nil {
					t.Fatal(err)
				}
				if g != nil {
					kept = append(kept, i)
					for _, e := range g {
						content(t, s, e) // every kept entry still has its bytes
					}
				}
			}
			if fmt.Sprint(kept) != fmt.Sprint(tt.wantIDs) {
				t.Errorf("kept steps %v, want %v", kept, tt.wantIDs)
			}
			if n := countFiles(t, filepath.Join(dir, "blobs")); n != tt.wantBlobs {
				t.Errorf("%d blobs, want %d", n, tt.wantBlobs)
			}
		})
	}
}

func TestCapsCollectTrees(t *testing.T) {
	s, dir := open(t, Options{MaxEntries: 1})
	tree := DirState(0o755, []Node{
		{Path: "f", Kind: KindFile, Mode: 0o644, Data: []byte("in the tree")},
		{Path: "g", Kind: KindFile, Mode: 0o644, Data: []byte("shared")},
	})
	rec(t, s, OpDelete, "d", tree, nil)
	if n := countFiles(t, filepath.Join(dir, "blobs")); n != 3 {
		t.Fatalf("%d blobs, want 3", n)
	}
	// The next change drops the tree (one entry at most), and with it the
	// manifest and the blob only it used; "shared" is kept by the new one.
	e := rec(t, s, OpWrite, "g", FileState([]byte("shared"), 0o644, 1), []byte("new"))
	blobs, _ := os.ReadDir(filepath.Join(dir, "blobs"))
	if len(blobs) != 1 || blobs[0].Name() != e.Before.SHA256 {
		t.Errorf("blobs %v, want only %s", blobs, e.Before.SHA256)
	}
}

func TestCorruptIgnored(t *testing.T) {
	s, dir := open(t, Options{})
	good := rec(t, s, OpWrite, "a", FileState([]byte("kept"), 0o644, 1), []byte("new"))
	entries := filepath.Join(dir, "entries")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(entries, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Newer than the good one, all broken in some way.
	write("09999999999999999991.json", "{not json")
	write("09999999999999999992.json", `{"version":1,"id":"00000000000000000001","op":"write","txn":"00000000000000000000000000000000","files":[{"key":"/ws/a","before":{"kind":"absent"},"after":{"kind":"absent"}}]}`)
	write("09999999999999999993.json", `{"version":1,"id":"09999999999999999993","op":"write","txn":"00000000000000000000000000000000","files":[{"key":"/ws/a","before":{"kind":"file","sha256":"../../../etc/passwd"},"after":{"kind":"absent"}}]}`)
	write("09999999999999999994.json", `{"version":0,"id":"09999999999999999994","op":"write","txn":"00000000000000000000000000000000","files":[]}`)
	write("09999999999999999995.json", "")
	write("not-an-id.json", "{}")
	if n := s.Damaged(); n != 0 {
		t.Errorf("Damaged = %d before any query", n)
	}
	list, err := s.List(key("a"))
	if err != nil || len(list) != 1 || list[0].ID != good.ID {
		t.Fatalf("List = %v, %v", ops(list), err)
	}
	// Each query says it passed over damaged records.
	seen := s.Damaged()
	if seen == 0 {
		t.Error("List passed over the damaged records without a count")
	}
	if last, err := s.Last(key("a")); err != nil || last.ID != good.ID {
		t.Errorf("Last = %+v, %v", last, err)
	}
	if s.Damaged() != 2*seen {
		t.Errorf("Damaged = %d after Last, want %d", s.Damaged(), 2*seen)
	}
	if g, err := s.LastGroup(); err != nil || len(g) != 1 || g[0].ID != good.ID {
		t.Errorf("LastGroup = %v, %v", g, err)
	}
	// A damaged blob is reported, not handed back.
	blob := filepath.Join(dir, "blobs", good.Before.SHA256)
	os.WriteFile(blob, []byte("evil"), 0o600)
	if _, err := s.Content(good); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Content of a damaged blob: %v", err)
	}
	os.Remove(blob)
	if _, err := s.Content(good); !errors.Is(err, ErrGone) {
		t.Errorf("Content of a missing blob: %v", err)
	}
	// The next collection removes the damaged records; the next id still
	// comes after the highest name seen.
	e := rec(t, s, OpWrite, "b", AbsentState(), []byte("b"))
	if e.ID <= "09999999999999999995" {
		t.Errorf("id %s not after the damaged ones", e.ID)
	}
	des, _ := os.ReadDir(entries)
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	if fmt.Sprint(names) != fmt.Sprint([]string{good.ID + ".json", e.ID + ".json", "not-an-id.json"}) {
		t.Errorf("entries left: %v", names)
	}
	// A damaged tree manifest.
	tree := rec(t, s, OpDelete, "d", DirState(0o755, []Node{{Path: "f", Kind: KindFile, Data: []byte("f")}}), nil)
	os.WriteFile(filepath.Join(dir, "blobs", tree.manifest), []byte(`{"nodes":[{"path":"../x","kind":"file"}]}`), 0o600)
	if _, err := s.Content(tree); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Content of a damaged manifest: %v", err)
	}
}

func TestPendingIgnored(t *testing.T) {
	clk := newClock()
	s, dir := open(t, Options{Now: clk.Now})
	p, err := s.Begin(OpWrite, Change{Key: key("a"), Path: "a", Before: FileState([]byte("before"), 0o644, 5)})
	if err != nil {
		t.Fatal(err)
	}
	// Not committed: not shown, but its bytes are on disk.
	if list, _ := s.List(key("a")); len(list) != 0 {
		t.Errorf("pending change listed: %v", ops(list))
	}
	if g, _ := s.LastGroup(); g != nil {
		t.Errorf("pending change is the last group: %v", ops(g))
	}
	if _, err := os.Stat(filepath.Join(dir, "blobs", Sum([]byte("before")))); err != nil {
		t.Errorf("previous bytes not kept before the write: %v", err)
	}
	// Other changes (and their collections) leave it alone, and so does
	// Recover while its process lives.
	rec(t, s, OpWrite, "b", FileState([]byte("b"), 0o644, 1), []byte("b2"))
	n, err := s.Recover(func(string, bool) (Fingerprint, error) {
		t.Fatal("asked about a live change")
		return Fingerprint{}, nil
	})
	if n != 0 || err != nil {
		t.Errorf("Recover = %d, %v", n, err)
	}
	es, err := p.Commit(FileFingerprint([]byte("after"), 6))
	if err != nil || len(es) != 1 {
		t.Fatalf("late Commit: %v %v", es, err)
	}
	// Abort leaves nothing behind.
	p, _ = s.Begin(OpWrite, Change{Key: key("c"), Path: "c", Before: FileState([]byte("c-only"), 0o644, 5)})
	if err := p.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := p.Abort(); !errors.Is(err, ErrFinished) {
		t.Errorf("second Abort: %v", err)
	}
	rec(t, s, OpWrite, "b", FileState([]byte("b2"), 0o644, 1), []byte("b3"))
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files after Abort", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "blobs", Sum([]byte("c-only")))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("aborted change's blob kept: %v", err)
	}
}

// crash makes p look like the change of a process that died: the lock is
// released, the files stay.
func crash(p *Pending) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held.Release()
	p.held = nil
}

// beginCrashed begins op's change of changes in s and leaves it as the
// change of a process that died (crash).
func beginCrashed(t *testing.T, s *Store, op Op, changes ...Change) {
	t.Helper()
	p, err := s.Begin(op, changes...)
	if err != nil {
		t.Fatal(err)
	}
	crash(p)
}

func TestRecover(t *testing.T) {
	before := FileState([]byte("before"), 0o644, 5)
	tests := []struct {
		name        string
		current     Fingerprint // the file as Recover finds it
		err         error
		wantN       int
		wantPending int
	}{
		{"write did not happen", FileFingerprint([]byte("before"), 9), nil, 0, 0},
		{"write happened", FileFingerprint([]byte("after"), 9), nil, 1, 0},
		{"file deleted", AbsentFingerprint(), nil, 1, 0},
		{"cannot tell yet", Fingerprint{}, errors.New("EACCES"), 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := open(t, Options{})
			beginCrashed(t, s, OpEdit, Change{Key: key("a"), Path: "a", Before: before})
			// Until Recover, the previous bytes survive other collections.
			rec(t, s, OpWrite, "other", AbsentState(), []byte("x"))
			if _, err := os.Stat(filepath.Join(dir, "blobs", Sum(before.Data))); err != nil {
				t.Fatalf("orphan's bytes dropped: %v", err)
			}
			n, err := s.Recover(func(k string, _ bool) (Fingerprint, error) {
				if k != key("a") {
					t.Errorf("asked about %s", k)
				}
				return tt.current, tt.err
			})
			if n != tt.wantN || (err != nil) != (tt.err != nil) {
				t.Errorf("Recover = %d, %v", n, err)
			}
			if got := countFiles(t, filepath.Join(dir, "pending")); got != tt.wantPending {
				t.Errorf("%d pending files, want %d", got, tt.wantPending)
			}
			list, _ := s.List(key("a"))
			if len(list) != tt.wantN {
				t.Fatalf("List = %v", ops(list))
			}
			if tt.wantN == 1 {
				e := list[0]
				if !e.Recovered || e.After != tt.current || e.Op != OpEdit {
					t.Errorf("recovered entry %+v", e)
				}
				if st := content(t, s, e); string(st.Data) != "before" {
					t.Errorf("recovered content %q", st.Data)
				}
			}
		})
	}
}

func TestRecoverCommittedBeforeCrash(t *testing.T) {
	// The record was written, then the process died before removing its
	// pending files: Recover removes them and commits nothing twice.
	s, dir := open(t, Options{})
	p, _ := s.Begin(OpWrite, Change{Key: key("a"), Path: "a", Before: AbsentState()})
	unlock, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	_, err = s.commit(&p.rec, []fileRecord{{Key: statefile.String(key("a")), Path: "a", Before: Kept{Kind: KindAbsent}, After: AbsentFingerprint()}}, false)
	p.mu.Unlock()
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	crash(p)
	n, err := s.Recover(func(string, bool) (Fingerprint, error) { return FileFingerprint([]byte("x"), 1), nil })
	if n != 0 || err != nil {
		t.Errorf("Recover = %d, %v", n, err)
	}
	if list, _ := s.List(key("a")); len(list) != 1 {
		t.Errorf("List = %v", ops(list))
	}
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files", n)
	}
}

func TestOrphanTTL(t *testing.T) {
	clk := newClock()
	s, dir := open(t, Options{Now: clk.Now})
	p, _ := s.Begin(OpWrite, Change{Key: key("a"), Path: "a", Before: FileState([]byte("old"), 0o644, 1)})
	live, _ := s.Begin(OpWrite, Change{Key: key("b"), Path: "b", Before: FileState([]byte("live"), 0o644, 1)})
	crash(p)
	clk.Add(orphanTTL + time.Hour)
	rec(t, s, OpWrite, "c", AbsentState(), []byte("c"))
	if _, err := os.Stat(filepath.Join(dir, "blobs", Sum([]byte("old")))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old orphan kept: %v", err)
	}
	// A live change is never collected, however old.
	if _, err := live.Commit(AbsentFingerprint()); err != nil {
		t.Fatal(err)
	}
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files", n)
	}
}

func TestUndoRoundTrip(t *testing.T) {
	// How ws undo uses the store: check, restore, record the undo itself.
	s, _ := open(t, Options{})
	disk := map[string][]byte{} // the workspace, as the integrator sees it
	fp := func(k string) Fingerprint {
		if d, ok := disk[k]; ok {
			return FileFingerprint(d, 1)
		}
		return AbsentFingerprint()
	}
	stateOf := func(k string) State {
		if d, ok := disk[k]; ok {
			return FileState(d, 0o644, 1)
		}
		return AbsentState()
	}
	write := func(op Op, name string, data []byte) {
		k := key(name)
		p, err := s.Begin(op, Change{Key: k, Path: name, Before: stateOf(k)})
		if err != nil {
			t.Fatal(err)
		}
		disk[k] = data
		if _, err := p.Commit(fp(k)); err != nil {
			t.Fatal(err)
		}
	}
	undo := func() error {
		group, err := s.LastGroup()
		if err != nil || group == nil {
			t.Fatalf("nothing to undo: %v", err)
		}
		var changes []Change
		var states []State
		for _, e := range group {
			if err := e.Check(fp(e.Key)); err != nil {
				return err
			}
			st, err := s.Content(e)
			if err != nil {
				return err
			}
			states = append(states, st)
			changes = append(changes, Change{Key: e.Key, Path: e.Path, Before: stateOf(e.Key), Undoes: e.ID})
		}
		p, err := s.Begin(OpUndo, changes...)
		if err != nil {
			return err
		}
		var after []Fingerprint
		for i, e := range group {
			if states[i].Kind == KindAbsent {
				delete(disk, e.Key)
			} else {
				disk[e.Key] = states[i].Data
			}
			after = append(after, fp(e.Key))
		}
		_, err = p.Commit(after...)
		return err
	}

	write(OpWrite, "a", []byte("v1"))
	write(OpEdit, "a", []byte("v2"))
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if string(disk[key("a")]) != "v1" {
		t.Fatalf("after undo: %q", disk[key("a")])
	}
	if err := undo(); err != nil { // undo of the undo: redo
		t.Fatal(err)
	}
	if string(disk[key("a")]) != "v2" {
		t.Fatalf("after redo: %q", disk[key("a")])
	}
	list, _ := s.List(key("a"))
	if got := ops(list); got != "undo:a undo:a edit:a write:a" {
		t.Errorf("history %q", got)
	}
	if list[0].Undoes != list[1].ID || list[1].Undoes != list[2].ID {
		t.Errorf("undoes %q %q", list[0].Undoes, list[1].Undoes)
	}
	// Changed behind ws's back: refused with the reason.
	disk[key("a")] = []byte("user edit")
	err := undo()
	var ce *ChangedError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "a has changed since ws's undo") ||
		!strings.Contains(err.Error(), "modified since (9 bytes, was 2)") {
		t.Errorf("undo of a changed file: %v", err)
	}
	// Undo of a create deletes the file.
	write(OpWrite, "new", []byte("n"))
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if _, ok := disk[key("new")]; ok {
		t.Error("undo of a create left the file")
	}
}

func TestCheckReasons(t *testing.T) {
	file := FileFingerprint([]byte("ab"), 5)
	tests := []struct {
		name      string
		after     Fingerprint
		current   Fingerprint
		wantError string
	}{
		{"same", file, file, ""},
		{"same bytes, touched", file, FileFingerprint([]byte("ab"), 6), ""},
		{"both absent", AbsentFingerprint(), AbsentFingerprint(), ""},
		{"no hash, same mtime", Fingerprint{Kind: KindFile, Size: 2, MtimeNS: 5}, file, ""},
		{"no hash, other mtime", Fingerprint{Kind: KindFile, Size: 2, MtimeNS: 4}, file, "it has been modified since"},
		{"no hash, no mtime", Fingerprint{Kind: KindFile, Size: 2}, Fingerprint{Kind: KindFile, Size: 2}, "it has been modified since"},
		{"deleted", file, AbsentFingerprint(), "it has been deleted since"},
		{"created", AbsentFingerprint(), file, "it has been created since"},
		{"now a directory", file, Fingerprint{Kind: KindDir}, "it is now a directory, not a file"},
		{"same size, other bytes", file, FileFingerprint([]byte("ba"), 5), "it has been modified since"},
		{"other size", file, FileFingerprint([]byte("abc"), 5), "it has been modified since (3 bytes, was 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Entry{Path: "p", Op: OpWrite, After: tt.after}
			err := e.Check(tt.current)
			var ce *ChangedError
			switch {
			case tt.wantError == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tt.wantError != "" && (!errors.As(err, &ce) || ce.Reason != tt.wantError):
				t.Errorf("Check: %v, want reason %q", err, tt.wantError)
			}
		})
	}
}

// otherProcessLock takes s's lock file as another process would: without
// this process's turns.
func otherProcessLock(t *testing.T, s *Store) (unlock func()) {
	t.Helper()
	l, err := statefile.Acquire(s.path(lockName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return l.Release
}

func TestLockTimeout(t *testing.T) {
	s, _ := open(t, Options{LockTimeout: 30 * time.Millisecond})
	unlock := otherProcessLock(t, s)
	start := time.Now()
	_, err := s.Begin(OpWrite, Change{Key: key("a"), Before: AbsentState()})
	if !errors.Is(err, ErrLockTimeout) {
		t.Errorf("Begin under a held lock: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %s", d)
	}
	unlock()
	p, err := s.Begin(OpWrite, Change{Key: key("a"), Before: AbsentState()})
	if err != nil {
		t.Fatal(err)
	}
	// A Commit that times out leaves the change pending; a retry commits.
	unlock = otherProcessLock(t, s)
	if _, err := p.Commit(AbsentFingerprint()); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("Commit under a held lock: %v", err)
	}
	unlock()
	if es, err := p.Commit(AbsentFingerprint()); err != nil || len(es) != 1 {
		t.Errorf("retried Commit: %v %v", es, err)
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Open(t.TempDir(), Options{}).Options()
	if o.MaxEntryBytes != 16<<20 || o.MaxTotalBytes != 256<<20 || o.MaxEntries != 1000 || o.LockTimeout != 10*time.Second || o.Now == nil {
		t.Errorf("defaults %+v", o)
	}
	o = Open(t.TempDir(), Options{MaxEntryBytes: 100, MaxTotalBytes: 10}).Options()
	if o.MaxEntryBytes != 10 {
		t.Errorf("MaxEntryBytes %d over MaxTotalBytes %d", o.MaxEntryBytes, o.MaxTotalBytes)
	}
}

func TestContentBytesIntact(t *testing.T) {
	// Bytes that are not text come back as they were.
	s, _ := open(t, Options{})
	data := []byte{0, 0xff, 0xfe, '\n', '\r', 0x80}
	e := rec(t, s, OpWrite, "bin", FileState(data, 0o755, 1), []byte("x"))
	if st := content(t, s, e); !bytes.Equal(st.Data, data) || st.Mode != 0o755 {
		t.Errorf("Content = %+v", st)
	}
}

func TestNewerVersionKept(t *testing.T) {
	// A record of a newer ws is not shown and not removed, and while it is
	// there no blob is collected: it may refer to any of them.
	s, dir := open(t, Options{MaxEntries: 1})
	old := rec(t, s, OpWrite, "a", FileState([]byte("a0"), 0o644, 1), []byte("a1"))
	newer := filepath.Join(dir, "entries", "09000000000000000000.json")
	if err := os.WriteFile(newer, []byte(`{"version":9,"id":"09000000000000000000","shape":"unknown"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rec(t, s, OpWrite, "b", FileState([]byte("b0"), 0o644, 1), []byte("b1"))
	if _, err := os.Stat(newer); err != nil {
		t.Errorf("newer record removed: %v", err)
	}
	if g, _ := s.Group("09000000000000000000"); g != nil {
		t.Errorf("newer record shown: %v", g)
	}
	if _, err := os.Stat(filepath.Join(dir, "blobs", old.Before.SHA256)); err != nil {
		t.Errorf("blob collected beside a newer record: %v", err)
	}
}

func TestDamagedBlobReplaced(t *testing.T) {
	// Keeping bytes whose blob is there but damaged writes it again.
	s, dir := open(t, Options{})
	e := rec(t, s, OpWrite, "a", FileState([]byte("abc"), 0o644, 1), []byte("x"))
	blob := filepath.Join(dir, "blobs", e.Before.SHA256)
	os.WriteFile(blob, []byte("xyz"), 0o600)
	e = rec(t, s, OpWrite, "a", FileState([]byte("abc"), 0o644, 2), []byte("y"))
	if st := content(t, s, e); string(st.Data) != "abc" {
		t.Errorf("Content = %q", st.Data)
	}
}

func TestValidNodePath(t *testing.T) {
	for p, want := range map[string]bool{
		"a": true, "a/b": true, "d\xfe/f\xfd": true, ".hidden": true, "a/..b": true,
		"": false, ".": false, "/a": false, "a/": false, "a//b": false, "a/./b": false, "../a": false, "a/..": false,
	} {
		if got := validNodePath(p); got != want {
			t.Errorf("validNodePath(%q) = %v, want %v", p, got, want)
		}
	}
}

// Calls of one process take turns on the lock, and the turns do not count
// against LockTimeout: a call queued behind a sibling that holds the lock
// longer than LockTimeout still gets it (before, it gave up as if another
// process held it, and its change was not kept for undo).
func TestLockTurnsInProcess(t *testing.T) {
	s, _ := open(t, Options{LockTimeout: 50 * time.Millisecond})
	unlock, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := s.lock()
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(200 * time.Millisecond) // four times LockTimeout
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("a sibling's turn after a long hold: %v", err)
	}
}

// A change of more files than syncEach writes its blobs unsynced and
// syncs them together: each reads back whole, as in a change of a few.
func TestBeginManyBlobs(t *testing.T) {
	for _, n := range []int{syncEach, syncEach + 1, 40} {
		s := Open(filepath.Join(t.TempDir(), "history"), Options{})
		var changes []Change
		for i := range n {
			data := []byte(fmt.Sprintf("file %d of %d\n", i, n))
			changes = append(changes, Change{Key: fmt.Sprintf("/ws/f%d", i), Path: fmt.Sprintf("f%d", i), Before: FileState(data, 0o644, 1)})
		}
		p, err := s.Begin(OpDelete, changes...)
		if err != nil {
			t.Fatal(err)
		}
		after := make([]Fingerprint, n)
		for i := range after {
			after[i] = AbsentFingerprint()
		}
		if _, err := p.Commit(after...); err != nil {
			t.Fatal(err)
		}
		for i, c := range changes {
			e, err := s.Last(c.Key)
			if err != nil || e == nil {
				t.Fatalf("%d files: %s: %v %v", n, c.Key, e, err)
			}
			st, err := s.Content(e)
			if err != nil || string(st.Data) != fmt.Sprintf("file %d of %d\n", i, n) {
				t.Errorf("%d files: %s: %q %v", n, c.Key, st.Data, err)
			}
		}
	}
}
