package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renameChanges are the two files of a rename of the directory with
// inode ino from a to b, replacing what to holds (absent or an empty
// directory).
func renameChanges(a, b string, ino uint64, to State) []Change {
	return []Change{
		{Key: key(a), Path: a, Before: RenamedDirState(0o755, 7, ino, 100), Rename: RenameFrom},
		{Key: key(b), Path: b, Before: to, Rename: RenameTo},
	}
}

// recoverByIdentity runs s.Recover over renames, which are settled by
// the identities of their paths alone: at says what the path of key k
// holds, and being asked for anything more (what: the tree, the bytes)
// fails the test.
func recoverByIdentity(t *testing.T, s *Store, what string, at func(k string) Fingerprint) (int, error) {
	return s.Recover(func(k string, identity bool) (Fingerprint, error) {
		if !identity {
			t.Errorf("asked for the %s of %s", what, k)
		}
		return at(k), nil
	})
}

// writeMoveRecord writes into the history at dir, as it is on disk, the
// record of a move with id, its format version and its files (JSON), as
// a ws of that version, or a damaged one, might have left it.
func writeMoveRecord(t *testing.T, dir, id string, version int, files string) {
	t.Helper()
	body := fmt.Sprintf(`{"version":%d,"id":%q,"op":"move","txn":"00000000000000000000000000000000","files":%s}`, version, id, files)
	if err := os.MkdirAll(filepath.Join(dir, "entries"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "entries", id+".json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// wantVersion fails the test unless the record id in the history at dir
// is written as version want.
func wantVersion(t *testing.T, dir, id string, want int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "entries", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Version int }
	if json.Unmarshal(data, &r); r.Version != want {
		t.Errorf("record version %d, want %d: %s", r.Version, want, data)
	}
}

// recRename records op as a rename, made, of the directory a (inode 9)
// to b, where nothing was.
func recRename(t *testing.T, s *Store, op Op, a, b string) {
	t.Helper()
	p, err := s.Begin(op, renameChanges(a, b, 9, AbsentState())...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(AbsentFingerprint(), DirIdentity(9, 100)); err != nil {
		t.Fatal(err)
	}
}

func TestRenameRecord(t *testing.T) {
	// A directory rename keeps no tree: its record has the two paths,
	// the directory's inode, version 2 on disk, and its from file has no
	// content to give back.
	s, dir := open(t, Options{})
	p, err := s.Begin(OpMove, renameChanges("src", "lib", 42, AbsentState())...)
	if err != nil {
		t.Fatal(err)
	}
	es, err := p.Commit(AbsentFingerprint(), DirIdentity(42, 100))
	if err != nil {
		t.Fatal(err)
	}
	from, to := Renamed(es)
	if from == nil || from.Path != "src" || to.Path != "lib" {
		t.Fatalf("Renamed = %+v, %+v", from, to)
	}
	if from.Before.Kind != KindDir || from.Before.Inode != 42 || from.Before.Nodes != 0 || to.Before.Kind != KindAbsent {
		t.Errorf("kept %+v and %+v", from.Before, to.Before)
	}
	if _, err := s.Content(from); !errors.Is(err, ErrRenamed) {
		t.Errorf("Content of the path left: %v, want ErrRenamed", err)
	}
	if st, err := s.Content(to); err != nil || st.Kind != KindAbsent {
		t.Errorf("Content of the path taken: %+v, %v", st, err)
	}
	if countFiles(t, filepath.Join(dir, "blobs")) != 0 {
		t.Errorf("a rename kept blobs")
	}
	wantVersion(t, dir, from.ID, 2)
	// The directory is checked by its inode, not its tree.
	if err := to.Check(DirIdentity(42, 100)); err != nil {
		t.Errorf("Check of the same directory: %v", err)
	}
	var ce *ChangedError
	if err := to.Check(DirIdentity(43, 100)); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "another directory") {
		t.Errorf("Check of another directory: %v", err)
	}
	if err := to.Check(DirIdentity(42, 101)); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "another directory") {
		t.Errorf("Check of a directory made later with the same inode number: %v", err)
	}
	if err := to.Check(DirIdentity(42, 0)); err != nil {
		t.Errorf("Check where the birth time is not known: %v", err)
	}
	if err := to.Check(AbsentFingerprint()); !errors.As(err, &ce) || ce.Reason != "it has been deleted since" {
		t.Errorf("Check of a directory gone: %v", err)
	}
	// Other records stay version 1.
	e := rec(t, s, OpWrite, "f", AbsentState(), []byte("x"))
	wantVersion(t, dir, e.ID, 1)
	// An empty directory replaced is kept (undo puts it back).
	p, err = s.Begin(OpMove, renameChanges("lib", "empty", 42, DirState(0o700, nil))...)
	if err != nil {
		t.Fatal(err)
	}
	es, err = p.Commit(AbsentFingerprint(), DirIdentity(42, 100))
	if err != nil {
		t.Fatal(err)
	}
	_, to = Renamed(es)
	if st, err := s.Content(to); err != nil || st.Kind != KindDir || st.Mode != 0o700 || len(st.Tree) != 0 {
		t.Errorf("Content of the empty directory replaced: %+v, %v", st, err)
	}
}

func TestRenameRefused(t *testing.T) {
	s, dir := open(t, Options{})
	dirState := RenamedDirState(0o755, 1, 9, 100)
	tests := []struct {
		name    string
		changes []Change
	}{
		{"one part", []Change{{Key: key("a"), Before: dirState, Rename: RenameFrom}}},
		{"two froms", []Change{{Key: key("a"), Before: dirState, Rename: RenameFrom}, {Key: key("b"), Before: dirState, Rename: RenameFrom}}},
		{"a third file", append(renameChanges("a", "b", 9, AbsentState()), Change{Key: key("c"), Before: AbsentState()})},
		{"unknown part", []Change{{Key: key("a"), Before: dirState, Rename: "sideways"}}},
		{"no inode", renameChanges("a", "b", 0, AbsentState())},
		{"a file renamed", []Change{{Key: key("a"), Before: FileState([]byte("x"), 0o644, 1), Rename: RenameFrom}, {Key: key("b"), Before: AbsentState(), Rename: RenameTo}}},
		{"replaces a file", renameChanges("a", "b", 9, FileState([]byte("x"), 0o644, 1))},
		{"replaces a full directory", renameChanges("a", "b", 9, DirState(0o755, []Node{{Path: "x", Kind: KindDir}}))},
		{"made dirs for the path left", []Change{{Key: key("a"), Before: dirState, Rename: RenameFrom, MadeDirs: 1}, {Key: key("b"), Before: AbsentState(), Rename: RenameTo}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := s.Begin(OpMove, tt.changes...); err == nil {
				p.Abort()
				t.Fatal("accepted")
			}
		})
	}
	// Both files are committed, or neither.
	p, err := s.Begin(OpMove, renameChanges("a", "b", 9, AbsentState())...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(AbsentFingerprint(), Fingerprint{}); err == nil {
		t.Error("committed one file of a rename")
	}
	p.Abort()
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files left", n)
	}
}

func TestRenameRecordDamaged(t *testing.T) {
	// A rename record that breaks the rules is damaged, passed over, not
	// trusted: a from file without inode, a version 1 rename.
	s, dir := open(t, Options{})
	files := `[{"key":"/ws/a","path":"a","before":{"kind":"dir","mode":493},"after":{"kind":"absent"},"rename":"from"},` +
		`{"key":"/ws/b","path":"b","before":{"kind":"absent"},"after":{"kind":"dir","inode":9},"rename":"to"}]`
	writeMoveRecord(t, dir, "09999999999999999991", 2, files)
	writeMoveRecord(t, dir, "09999999999999999992", 1, strings.Replace(files, `"mode":493`, `"mode":493,"inode":9`, 1))
	if g, err := s.LastGroup(); err != nil || g != nil {
		t.Errorf("LastGroup = %v, %v", ops(g), err)
	}
	if s.Damaged() != 2 {
		t.Errorf("Damaged = %d, want 2", s.Damaged())
	}
}

func TestRecoverRename(t *testing.T) {
	// A rename whose process died is settled by the directory's inode,
	// asked for without its tree: still at the path it was to leave, the
	// change is dropped; gone from it, both files are committed.
	tests := []struct {
		name     string
		atFrom   Fingerprint // what the path to leave holds
		atTo     Fingerprint
		wantN    int
		wantGone bool
	}{
		{"rename not made", DirIdentity(9, 100), AbsentFingerprint(), 0, true},
		{"rename made", AbsentFingerprint(), DirIdentity(9, 100), 2, false},
		{"made, and the old path taken again", DirIdentity(10, 100), DirIdentity(9, 100), 2, false},
		{"cannot tell", Fingerprint{}, DirIdentity(9, 100), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := open(t, Options{})
			beginCrashed(t, s, OpMove, renameChanges("a", "b", 9, AbsentState())...)
			n, err := recoverByIdentity(t, s, "tree", func(k string) Fingerprint {
				if k == key("a") {
					return tt.atFrom
				}
				return tt.atTo
			})
			if n != tt.wantN || err != nil {
				t.Errorf("Recover = %d, %v", n, err)
			}
			if got := countFiles(t, filepath.Join(dir, "pending")); got != 0 {
				t.Errorf("%d pending files", got)
			}
			g, _ := s.LastGroup()
			if (g == nil) != tt.wantGone {
				t.Fatalf("LastGroup = %v", ops(g))
			}
			if g != nil {
				from, to := Renamed(g)
				if from == nil || !from.Recovered || from.After != tt.atFrom || to.After != tt.atTo {
					t.Errorf("recovered %+v, %+v", from, to)
				}
			}
		})
	}
}

func TestMovedAway(t *testing.T) {
	// The newest rename of a directory holding a file tells whether the
	// file went away with it since a change: moved away, or moved back.
	s, _ := open(t, Options{})
	edit := rec(t, s, OpEdit, "src/sub/a.txt", FileState([]byte("x"), 0o644, 1), []byte("y"))
	check := func(what, wantFrom, wantTo string) {
		t.Helper()
		from, to, err := s.MovedAway(key("src/sub/a.txt"), edit.ID)
		wantRename(t, what, "MovedAway", from, to, err, wantFrom, wantTo)
	}
	check("nothing moved", "", "")
	recRename(t, s, OpMove, "srcx", "other") // a sibling whose name starts alike
	check("a sibling moved", "", "")
	recRename(t, s, OpMove, "src", "lib")
	check("its directory moved", "src", "lib")
	recRename(t, s, OpUndo, "lib", "src")
	check("moved back", "", "")
	recRename(t, s, OpMove, "src/sub", "sub2")
	check("its directory moved again", "src/sub", "sub2")
	if from, _, _ := s.MovedAway(key("src/sub/a.txt"), "99999999999999999999"); from != nil {
		t.Errorf("a rename older than the change counted")
	}
}

// wantRename fails the test unless the rename a query (MovedAway or
// MovedHere) found is the one from wantFrom to wantTo, or none when
// wantFrom is "".
func wantRename(t *testing.T, what, query string, from, to *Entry, err error, wantFrom, wantTo string) {
	t.Helper()
	switch {
	case err != nil:
		t.Fatal(err)
	case wantFrom == "" && from != nil:
		t.Errorf("%s: %s found a rename from %s", what, query, from.Path)
	case wantFrom != "" && (from == nil || from.Path != wantFrom || to.Path != wantTo):
		t.Errorf("%s: %s = %+v, %+v; want %s to %s", what, query, from, to, wantFrom, wantTo)
	}
}

func TestMovedHere(t *testing.T) {
	// The newest rename of a directory holding a path tells whether it
	// came where it is with that directory, and from which path.
	s, _ := open(t, Options{})
	check := func(what, path, wantOld string) {
		t.Helper()
		from, _, old, err := s.MovedHere(key(path))
		switch {
		case err != nil:
			t.Fatal(err)
		case wantOld == "" && from != nil:
			t.Errorf("%s: moved here from %s", what, old)
		case wantOld != "" && (from == nil || old != key(wantOld)):
			t.Errorf("%s: MovedHere = %+v, %q; want %s", what, from, old, key(wantOld))
		}
	}
	check("nothing moved", "lib/sub/a.txt", "")
	recRename(t, s, OpMove, "src", "lib")
	check("its directory moved here", "lib/sub/a.txt", "src/sub/a.txt")
	check("the directory itself", "lib", "")
	check("a sibling whose name starts alike", "libx/a.txt", "")
	recRename(t, s, OpUndo, "lib", "src")
	check("moved away again", "lib/sub/a.txt", "")
	check("moved back", "src/sub/a.txt", "lib/sub/a.txt")
}

func TestMovedHereChain(t *testing.T) {
	// A rename taken back by an undo is passed over with the undo: after
	// lib to lib2, lib2 to lib3 and the undo of the second, lib2/a.txt
	// came where it is with the first, and an undo of that undo (a redo)
	// counts as the rename it redoes.
	s, _ := open(t, Options{})
	rename := func(op Op, a, b, undoes string) string {
		t.Helper()
		changes := renameChanges(a, b, 9, AbsentState())
		for i := range changes {
			changes[i].Undoes = undoes
		}
		p, err := s.Begin(op, changes...)
		if err != nil {
			t.Fatal(err)
		}
		es, err := p.Commit(AbsentFingerprint(), DirIdentity(9, 100))
		if err != nil {
			t.Fatal(err)
		}
		return es[0].ID
	}
	check := func(what, path, wantFrom, wantTo string) {
		t.Helper()
		from, to, _, err := s.MovedHere(key(path))
		wantRename(t, what, "MovedHere", from, to, err, wantFrom, wantTo)
	}
	rename(OpMove, "lib", "lib2", "")
	second := rename(OpMove, "lib2", "lib3", "")
	check("two moves", "lib3/a.txt", "lib2", "lib3")
	undo := rename(OpUndo, "lib3", "lib2", second)
	check("the second undone", "lib2/a.txt", "lib", "lib2")
	check("the second undone, at its path", "lib3/a.txt", "", "")
	rename(OpUndo, "lib2", "lib3", undo)
	check("the second redone", "lib3/a.txt", "lib2", "lib3")
}

// bigSize is the size of the file of fileRenameChanges, over the cap.
const bigSize = DefaultMaxEntryBytes + 1

// fileRenameChanges are the two files of a rename of a file too big to
// keep (inode 42, mtime 5) from a to b, replacing what b holds.
func fileRenameChanges(a, b string, to State) []Change {
	return []Change{
		{Key: key(a), Path: a, Before: RenamedFileState(0o644, bigSize, 5, 42, 100), Rename: RenameFrom},
		{Key: key(b), Path: b, Before: to, Rename: RenameTo},
	}
}

func TestFileRenameRecord(t *testing.T) {
	// A file too big to keep, renamed, is kept by its identity, size and
	// mtime, no bytes: version 3 on disk (a ws that knows only directory
	// renames passes it over as newer), and its check compares all three.
	s, dir := open(t, Options{})
	p, err := s.Begin(OpMove, fileRenameChanges("big", "small", FileState([]byte("small"), 0o600, 3))...)
	if err != nil {
		t.Fatal(err)
	}
	es, err := p.Commit(AbsentFingerprint(), FileIdentity(bigSize, 5, 42, 100))
	if err != nil {
		t.Fatal(err)
	}
	from, to := Renamed(es)
	if from == nil || from.Path != "big" || to.Path != "small" {
		t.Fatalf("Renamed = %+v, %+v", from, to)
	}
	if k := from.Before; k.Kind != KindFile || k.Size != bigSize || k.MtimeNS != 5 || k.Inode != 42 || k.BirthNS != 100 || k.TooLarge || k.SHA256 != "" {
		t.Errorf("kept %+v", k)
	}
	if _, err := s.Content(from); !errors.Is(err, ErrRenamed) {
		t.Errorf("Content of the path left: %v, want ErrRenamed", err)
	}
	if st, err := s.Content(to); err != nil || st.Kind != KindFile || string(st.Data) != "small" || st.Mode != 0o600 {
		t.Errorf("Content of the file replaced: %+v, %v", st, err)
	}
	wantVersion(t, dir, from.ID, 3)
	checks := []struct {
		name   string
		now    Fingerprint
		reason string // "": the same file
	}{
		{"the same file", FileIdentity(bigSize, 5, 42, 100), ""},
		{"birth time not known", FileIdentity(bigSize, 5, 42, 0), ""},
		{"known by size and mtime only", Fingerprint{Kind: KindFile, Size: bigSize, MtimeNS: 5}, ""},
		{"another inode", FileIdentity(bigSize, 5, 43, 100), "it is another file now, not the one ws moved there"},
		{"the inode reused", FileIdentity(bigSize, 5, 42, 101), "it is another file now, not the one ws moved there"},
		{"grown in place", FileIdentity(bigSize+1, 5, 42, 100), "it has been modified since (16777218 bytes, was 16777217)"},
		{"written in place", FileIdentity(bigSize, 6, 42, 100), "it has been modified since"},
		{"a directory now", DirIdentity(42, 100), "it is now a directory, not a file"},
		{"gone", AbsentFingerprint(), "it has been deleted since"},
	}
	for _, c := range checks {
		err := to.Check(c.now)
		var ce *ChangedError
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.reason != "" && (!errors.As(err, &ce) || ce.Reason != c.reason):
			t.Errorf("%s: %v, want %q", c.name, err, c.reason)
		}
	}
	// A directory is still known by its inode alone.
	if !DirIdentity(9, 100).Same(Fingerprint{Kind: KindDir, Size: 3, Inode: 9, BirthNS: 100, MtimeNS: 8}) {
		t.Error("a directory's identity is not enough")
	}
}

func TestFileRenameRefused(t *testing.T) {
	s, _ := open(t, Options{})
	tests := []struct {
		name    string
		changes []Change
	}{
		{"no inode", []Change{{Key: key("a"), Before: RenamedFileState(0o644, bigSize, 5, 0, 0), Rename: RenameFrom}, {Key: key("b"), Before: AbsentState(), Rename: RenameTo}}},
		{"replaces a directory", fileRenameChanges("a", "b", DirState(0o755, nil))},
		{"replaces something known by its inode", fileRenameChanges("a", "b", RenamedFileState(0o644, bigSize, 5, 43, 0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := s.Begin(OpMove, tt.changes...); err == nil {
				p.Abort()
				t.Fatal("accepted")
			}
		})
	}
	// A symbolic link, a file, or nothing may be replaced.
	for _, to := range []State{AbsentState(), SymlinkState("t"), FileState([]byte("x"), 0o644, 1), {Kind: KindFile, Size: bigSize + 5}} {
		p, err := s.Begin(OpMove, fileRenameChanges("a", "b", to)...)
		if err != nil {
			t.Errorf("replacing a %s: %v", to.Kind, err)
			continue
		}
		p.Abort()
	}
}

func TestFileRenameRecordVersions(t *testing.T) {
	// A file's rename written as version 2 (a directory rename's) breaks
	// the rules: damaged. A record of a version newer than 3 is passed
	// over as a newer ws's, not damaged.
	s, dir := open(t, Options{})
	files := `[{"key":"/ws/a","path":"a","before":{"kind":"file","mode":420,"size":16777217,"mtime_ns":5,"inode":42},"after":{"kind":"absent"},"rename":"from"},` +
		`{"key":"/ws/b","path":"b","before":{"kind":"absent"},"after":{"kind":"file","size":16777217,"mtime_ns":5,"inode":42},"rename":"to"}]`
	writeMoveRecord(t, dir, "09999999999999999991", 2, files)
	writeMoveRecord(t, dir, "09999999999999999992", 4, files)
	if g, err := s.LastGroup(); err != nil || g != nil {
		t.Errorf("LastGroup = %v, %v", ops(g), err)
	}
	if s.Damaged() != 1 {
		t.Errorf("Damaged = %d, want 1", s.Damaged())
	}
	// Written as version 3, it is read.
	writeMoveRecord(t, dir, "09999999999999999993", 3, files)
	g, err := s.LastGroup()
	if from, _ := Renamed(g); err != nil || from == nil || from.Before.Inode != 42 {
		t.Errorf("LastGroup = %v, %v", ops(g), err)
	}
}

func TestRecoverFileRename(t *testing.T) {
	// A file's rename whose process died is settled by the file's
	// identity: still at the path it was to leave, dropped; gone from it,
	// both files committed.
	same := FileIdentity(bigSize, 5, 42, 100)
	tests := []struct {
		name     string
		atFrom   Fingerprint
		wantN    int
		wantGone bool
	}{
		{"rename not made", same, 0, true},
		{"rename made", AbsentFingerprint(), 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := open(t, Options{})
			beginCrashed(t, s, OpMove, fileRenameChanges("a", "b", AbsentState())...)
			n, err := recoverByIdentity(t, s, "bytes", func(k string) Fingerprint {
				switch {
				case k == key("a"):
					return tt.atFrom
				case tt.wantGone:
					return AbsentFingerprint()
				}
				return same
			})
			if n != tt.wantN || err != nil {
				t.Errorf("Recover = %d, %v", n, err)
			}
			if g, _ := s.LastGroup(); (g == nil) != tt.wantGone {
				t.Fatalf("LastGroup = %v", ops(g))
			}
		})
	}
}
