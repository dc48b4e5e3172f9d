package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// entries turns a record into its entries, in the order of the change.
func (r *record) entries() []*Entry {
	out := make([]*Entry, len(r.Files))
	for i, f := range r.Files {
		out[i] = &Entry{ID: r.ID, Time: r.Time, Op: r.Op, Key: string(f.Key), Path: string(f.Path), Before: f.Before,
			After: f.After, Undoes: f.Undoes, MadeDirs: f.MadeDirs, Recovered: r.Recovered, Rename: f.Rename, Thread: string(r.Thread), manifest: f.Manifest}
	}
	return out
}

// eachRecord calls fn with the records, newest first, until it returns
// false. Damaged records are skipped, and so are records dropped while
// they are read.
func (s *Store) eachRecord(fn func(*record) bool) error {
	ids, err := s.recordIDs()
	if err != nil {
		return err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		r, err := s.loadRecord(ids[i])
		if errors.Is(err, ErrCorrupt) {
			s.damaged.Add(1)
			continue
		}
		if errors.Is(err, errNewer) || err == nil && r == nil {
			continue
		}
		if err != nil {
			return err
		}
		if !fn(r) {
			break
		}
	}
	return nil
}

// List returns the entries of the file key, newest first.
func (s *Store) List(key string) ([]*Entry, error) {
	var out []*Entry
	err := s.eachRecord(func(r *record) bool {
		for _, e := range r.entries() {
			if e.Key == key {
				out = append(out, e)
			}
		}
		return true
	})
	return out, err
}

// Last returns the newest entry of the file key, or nil if it has none.
// The entry may be one file of a group: Group(e.ID) gives them all.
func (s *Store) Last(key string) (*Entry, error) { return s.LastWhere(key, nil) }

// LastWhere is Last among the entries that satisfy ours (nil: every
// entry), such as those of one thread.
func (s *Store) LastWhere(key string, ours func(e *Entry) bool) (*Entry, error) {
	var last *Entry
	err := s.eachRecord(func(r *record) bool {
		for _, e := range r.entries() {
			if e.Key == key && (ours == nil || ours(e)) {
				last = e
				return false
			}
		}
		return true
	})
	return last, err
}

// LastGroup returns the entries of the newest change to any file, in the
// order they were given to Begin, or nil if there is none.
func (s *Store) LastGroup() ([]*Entry, error) { return s.LastGroupWhere(nil) }

// LastGroupWhere is LastGroup among the changes whose every entry
// satisfies ours (nil: every change): a state directory shared by two
// workspaces holds both their changes, and each takes back its own; two
// threads of one workspace alike.
func (s *Store) LastGroupWhere(ours func(e *Entry) bool) ([]*Entry, error) {
	var out []*Entry
	err := s.eachRecord(func(r *record) bool {
		es := r.entries()
		for _, e := range es {
			if ours != nil && !ours(e) {
				return true
			}
		}
		out = es
		return false
	})
	return out, err
}

// Renamed returns the two files of a directory rename, the path the
// directory left and the one it took, or nils when group (the entries of
// one change) is not a rename.
func Renamed(group []*Entry) (from, to *Entry) {
	for _, e := range group {
		switch e.Rename {
		case RenameFrom:
			from = e
		case RenameTo:
			to = e
		}
	}
	if from == nil || to == nil {
		return nil, nil
	}
	return from, to
}

// MovedAway returns the directory rename, newer than the change since,
// that last moved a directory holding key (a proper ancestor of it) away
// from its path: its two files, or nils when none did, or when the newest
// rename of such an ancestor moved one back to it.
func (s *Store) MovedAway(key, since string) (from, to *Entry, err error) {
	return s.movedFrom(since, func(dir string) bool { return strings.HasPrefix(key, dir+string(filepath.Separator)) })
}

// movedFrom returns the directory rename, newer than the change since,
// that last moved a path that holds (by holds) away from there, or nils
// when none did or the newest rename of such a path moved one back.
func (s *Store) movedFrom(since string, holds func(dir string) bool) (from, to *Entry, err error) {
	err = s.eachRecord(func(r *record) bool {
		if r.ID <= since {
			return false
		}
		f, t := Renamed(r.entries())
		switch {
		case f == nil:
			return true
		case holds(f.Key):
			from, to = f, t
			return false
		}
		return !holds(t.Key)
	})
	return from, to, err
}

// MovedHere returns the directory rename that last moved a directory
// holding key (a proper ancestor of it) to its path, and key's path
// before that rename (its real path, from which the changes made before
// are kept); nils when none did, or when the newest rename of such an
// ancestor moved one away from it. A rename taken back by an undo is
// passed over with that undo (together they moved nothing), so after
// lib to lib2, lib2 to lib3 and the undo of the second, the rename that
// brought lib2/f where it is is the first, not the undo.
func (s *Store) MovedHere(key string) (from, to *Entry, oldKey string, err error) {
	below := func(dir string) bool { return strings.HasPrefix(key, dir+string(filepath.Separator)) }
	undone := map[string]bool{}
	err = s.eachRecord(func(r *record) bool {
		f, t := Renamed(r.entries())
		switch {
		case f == nil || undone[r.ID]:
			return true
		case t.Undoes != "":
			undone[t.Undoes] = true
			return true
		case below(t.Key):
			from, to, oldKey = f, t, f.Key+key[len(t.Key):]
			return false
		}
		return !below(f.Key)
	})
	return from, to, oldKey, err
}

// MovedOn returns the directory rename, newer than the change since, that
// last moved the directory at key (or one holding it) away from there:
// its two files, or nils when none did, or when the newest rename of
// such a path moved one back to it.
func (s *Store) MovedOn(key, since string) (from, to *Entry, err error) {
	return s.movedFrom(since, func(dir string) bool { return key == dir || strings.HasPrefix(key, dir+string(filepath.Separator)) })
}

// Group returns the entries of the change id, or nil if it is not kept.
func (s *Store) Group(id string) ([]*Entry, error) {
	if !validID(id) {
		return nil, nil
	}
	r, err := s.loadRecord(id)
	switch {
	case errors.Is(err, ErrCorrupt) || errors.Is(err, errNewer):
		return nil, nil
	case err != nil || r == nil:
		return nil, err
	}
	return r.entries(), nil
}

// Content returns the state e replaced, bytes included: Data for a file,
// Target for a symbolic link, Tree (every node with its Data) for a
// directory (sorted by path, so a directory comes before what it holds),
// nothing more for an absent file. It fails with ErrTooLarge
// when the bytes were not kept, ErrGone when they have been dropped
// since e was read, ErrCorrupt when they do not match their hash.
func (s *Store) Content(e *Entry) (State, error) {
	k := e.Before
	st := State{Kind: k.Kind, Mode: k.Mode, Owner: k.Owner, Size: k.Size, MtimeNS: k.MtimeNS}
	if k.TooLarge {
		if k.Kind == KindDir { // Size is where counting stopped, over the cap
			return State{}, fmt.Errorf("%s (a directory, its files over %d bytes) was %w", e.Path, s.opts.MaxEntryBytes, ErrTooLarge)
		}
		return State{}, fmt.Errorf("%s (%d bytes) was %w", e.Path, k.Size, ErrTooLarge)
	}
	if e.Rename == RenameFrom {
		return State{}, fmt.Errorf("%s was %w", e.Path, ErrRenamed)
	}
	switch k.Kind {
	case KindAbsent:
		return State{Kind: KindAbsent}, nil
	case KindSymlink:
		st.Target = k.Target
		return st, nil
	case KindFile:
		data, err := s.readBlob(k.SHA256)
		if err != nil {
			return State{}, fmt.Errorf("%s: %w", e.Path, err)
		}
		st.Data = data
		return st, nil
	case KindDir:
		nodes, err := s.readManifest(e.manifest)
		if err != nil {
			return State{}, fmt.Errorf("%s: %w", e.Path, err)
		}
		st.Tree = make([]Node, len(nodes))
		for i, n := range nodes {
			st.Tree[i] = Node{Path: string(n.Path), Kind: n.Kind, Mode: n.Mode, Owner: n.Owner, Target: string(n.Target)}
			if n.Kind == KindFile {
				data, err := s.readBlob(n.SHA256)
				if err != nil {
					return State{}, fmt.Errorf("%s/%s: %w", e.Path, n.Path, err)
				}
				st.Tree[i].Data = data
			}
		}
		return st, nil
	}
	return State{}, fmt.Errorf("%w: %s has kind %q", ErrCorrupt, e.Path, k.Kind)
}
