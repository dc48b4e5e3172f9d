package history

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/wstools/ws/pkg/statefile"
)

// Change is one file of a change about to be made.
type Change struct {
	Key    string // the file's real absolute path (the entry's key)
	Path   string // its workspace-relative display path, slash-separated
	Before State  // what is there now, before the write
	// Undoes is, for OpUndo, the ID of the change being reverted.
	Undoes string
	// MadeDirs is how many of the file's nearest ancestors the change
	// creates (they do not exist when it begins, Before being absent):
	// undo removes them, those still empty, with the file.
	MadeDirs int
	// Rename is the part the file plays in a rename: the change's two
	// files are then the path the directory (or file) leaves, its Before
	// a RenamedDirState (or RenamedFileState), and the one it takes, its
	// Before absent or an empty directory (for a file: absent, a file or
	// a symbolic link).
	Rename Rename
}

// Pending is a change begun and not yet committed. Until Commit or Abort,
// it holds a lock that tells Recover its process is alive.
type Pending struct {
	s    *Store
	mu   sync.Mutex
	rec  pendingRecord
	held *statefile.Lock // on the .lock file; nil once finished
}

// Begin records the previous state of each changed file before the
// caller writes: once it returns, the bytes are on disk and survive a
// crash. Then the caller makes the change and calls Commit (or Abort if
// nothing was written). The files of one call are one group: one undo
// step. Each key may appear once.
func (s *Store) Begin(op Op, changes ...Change) (*Pending, error) {
	if !op.valid() {
		return nil, fmt.Errorf("history: unknown op %q", op)
	}
	if len(changes) == 0 {
		return nil, errors.New("history: a change needs at least one file")
	}
	if err := checkRename(changes); err != nil {
		return nil, err
	}
	files := make([]fileRecord, len(changes))
	blobs := map[string][]byte{}
	seen := map[string]bool{}
	var kept int64
	for i, c := range changes {
		if !validKey(c.Key) {
			return nil, fmt.Errorf("history: key %q is not a clean absolute path", c.Key)
		}
		if seen[c.Key] {
			return nil, fmt.Errorf("history: %s appears twice in one change", c.Key)
		}
		seen[c.Key] = true
		if c.Undoes != "" && !validID(c.Undoes) {
			return nil, fmt.Errorf("history: %q is not a change id", c.Undoes)
		}
		fr, err := s.prepare(c, blobs, &kept)
		if err != nil {
			return nil, err
		}
		files[i] = fr
	}
	var tok [txnLen / 2]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, err
	}
	p := &Pending{s: s, rec: pendingRecord{
		Version: versionOf(files), Txn: hex.EncodeToString(tok[:]), Begun: s.opts.Now().UTC(), Op: op, Thread: statefile.String(s.opts.Thread), Files: files,
	}}

	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := os.MkdirAll(s.path(pendingDir), 0o700); err != nil {
		return nil, err
	}
	lockPath := s.path(pendingDir, p.rec.Txn+".lock")
	held, err := statefile.Acquire(lockPath, 0) // the txn id is new: nobody holds it
	if err != nil {
		os.Remove(lockPath)
		return nil, err
	}
	// Blobs first, on disk, then the record that refers to them. A crash
	// in between leaves blobs nothing refers to; a collection removes them.
	// Past syncEach blobs (a directory removed whole, say) they are
	// written unsynced and the file system synced once after the last:
	// two fsyncs a blob made deleting 10 000 files take 10 s. A blob a
	// crash left empty or in part is refused by its hash when read, and
	// rewritten by the next change that keeps those bytes.
	shas := make([]string, 0, len(blobs))
	for sha := range blobs {
		shas = append(shas, sha)
	}
	sort.Strings(shas)
	each := len(shas) <= syncEach
	for _, sha := range shas {
		err = s.writeBlob(sha, blobs[sha], each)
		if err != nil {
			break
		}
	}
	if err == nil && !each {
		err = statefile.SyncFS(s.path(blobsDir))
	}
	if err == nil {
		err = statefile.WriteJSON(s.path(pendingDir, p.rec.Txn+".json"), &p.rec)
	}
	if err != nil {
		s.removePending(p.rec.Txn)
		held.Release()
		return nil, err
	}
	p.held = held
	return p, nil
}

// syncEach is how many blobs a change syncs one by one; more are synced
// together (see Begin).
const syncEach = 8

// checkRename refuses a rename that is not one: its two files, the path
// left (a directory or a file known by its inode) and the path taken (was
// nothing there, or an empty directory; for a file, nothing, a file or a
// symbolic link), and no other.
func checkRename(changes []Change) error {
	roles := map[Rename]*Change{}
	for i := range changes {
		c := &changes[i]
		if !c.Rename.valid() {
			return fmt.Errorf("history: %s: unknown rename part %q", c.Key, c.Rename)
		}
		if c.Rename != "" {
			roles[c.Rename] = c
		}
	}
	if len(roles) == 0 {
		return nil
	}
	from, to := roles[RenameFrom], roles[RenameTo]
	switch {
	case len(changes) != 2 || from == nil || to == nil:
		return errors.New("history: a rename is one path left and one path taken")
	case from.Before.Kind != KindDir && from.Before.Kind != KindFile || from.Before.Inode == 0:
		return fmt.Errorf("history: %s: the directory or file renamed is known by its inode", from.Key)
	case from.MadeDirs != 0:
		return fmt.Errorf("history: %s: made directories for a file that exists", from.Key)
	case to.Before.Inode != 0:
		return fmt.Errorf("history: %s: what a rename replaces is kept as it is, not by its inode", to.Key)
	case from.Before.Kind == KindDir && to.Before.Kind != KindAbsent && (to.Before.Kind != KindDir || len(to.Before.Tree) != 0):
		return fmt.Errorf("history: %s: a directory rename replaces nothing or an empty directory", to.Key)
	case from.Before.Kind == KindFile && to.Before.Kind == KindDir:
		return fmt.Errorf("history: %s: a file rename never replaces a directory", to.Key)
	}
	return nil
}

// prepare turns a change into its file record, adding the blobs to keep;
// kept counts the bytes the group keeps so far.
func (s *Store) prepare(c Change, blobs map[string][]byte, kept *int64) (fileRecord, error) {
	st := c.Before
	if c.MadeDirs < 0 || c.MadeDirs > 0 && st.Kind != KindAbsent {
		return fileRecord{}, fmt.Errorf("history: %s: made directories for a file that exists", c.Key)
	}
	fr := fileRecord{Key: statefile.String(c.Key), Path: statefile.String(c.Path), Undoes: c.Undoes, MadeDirs: c.MadeDirs, Rename: c.Rename}
	k := Kept{Kind: st.Kind, Mode: KeptMode(st.Mode), Owner: st.Owner, MtimeNS: st.MtimeNS}
	if c.Rename == RenameFrom {
		// The directory (or file) goes on living at the other path:
		// nothing of it is kept but what tells it from another.
		k.Size, k.Inode, k.BirthNS = st.Size, st.Inode, st.BirthNS
		fr.Before = k
		return fr, nil
	}
	fits := func(n int64) bool {
		if n > s.opts.MaxEntryBytes || *kept+n > s.opts.MaxTotalBytes {
			return false
		}
		*kept += n
		return true
	}
	switch st.Kind {
	case KindAbsent:
		k = Kept{Kind: KindAbsent}
	case KindFile:
		switch {
		case st.Data == nil && st.Size > 0:
			if st.Size <= s.opts.MaxEntryBytes {
				return fr, fmt.Errorf("history: %s: content missing (%d bytes fit the cap)", c.Key, st.Size)
			}
			k.Size, k.TooLarge = st.Size, true
		case st.Size != 0 && st.Size != int64(len(st.Data)):
			return fr, fmt.Errorf("history: %s: size %d, but %d bytes given", c.Key, st.Size, len(st.Data))
		default:
			k.Size, k.SHA256 = int64(len(st.Data)), Sum(st.Data)
			if fits(k.Size) {
				blobs[k.SHA256] = st.Data
			} else {
				k.TooLarge = true
			}
		}
	case KindSymlink:
		if st.Target == "" {
			return fr, fmt.Errorf("history: %s: symbolic link without a target", c.Key)
		}
		f := SymlinkFingerprint(st.Target)
		k.Size, k.SHA256, k.Target = f.Size, f.SHA256, st.Target
	case KindDir:
		if st.Tree == nil && st.Size > s.opts.MaxEntryBytes {
			// Its files total over the cap: its tree was not read.
			// Kept as an empty directory, undo would put back nothing
			// of them and say it restored the directory.
			k.Size, k.TooLarge = st.Size, true
			break
		}
		nodes := make([]storedNode, 0, len(st.Tree))
		paths := map[string]bool{}
		for _, n := range st.Tree {
			if !validNodePath(n.Path) || paths[n.Path] {
				return fr, fmt.Errorf("history: %s: bad or repeated tree path %q", c.Key, n.Path)
			}
			paths[n.Path] = true
			switch n.Kind {
			case KindFile, KindDir:
			case KindSymlink:
				if n.Target == "" {
					return fr, fmt.Errorf("history: %s: symbolic link %s without a target", c.Key, n.Path)
				}
			default:
				return fr, fmt.Errorf("history: %s: tree path %s has kind %q", c.Key, n.Path, n.Kind)
			}
			nodes = append(nodes, storeNode(n))
		}
		sort.Slice(nodes, func(i, j int) bool { return nodes[i].Path < nodes[j].Path })
		f := dirFingerprint(nodes, st.MtimeNS)
		k.Size, k.SHA256, k.Nodes = f.Size, f.SHA256, len(nodes)
		data, err := json.Marshal(manifest{Nodes: nodes})
		if err != nil {
			return fr, err
		}
		if fits(f.Size + int64(len(data))) {
			sha := Sum(data)
			fr.Manifest, fr.ManifestSize = sha, int64(len(data))
			blobs[sha] = data
			for _, n := range st.Tree {
				if n.Kind == KindFile {
					blobs[Sum(n.Data)] = n.Data
				}
			}
		} else {
			k.TooLarge = true
		}
	default:
		return fr, fmt.Errorf("history: %s: unknown kind %q", c.Key, st.Kind)
	}
	fr.Before = k
	return fr, nil
}

// Commit records the change as made. after holds, for each Change given
// to Begin and in that order, the file's fingerprint after the write; a
// zero Fingerprint leaves out a file that was not written (all zero is
// Abort). It returns the committed entries. If Commit fails, the change
// is still pending: retry, or Abort, or leave it to Recover.
func (p *Pending) Commit(after ...Fingerprint) ([]*Entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		return nil, ErrFinished
	}
	if len(after) != len(p.rec.Files) {
		return nil, fmt.Errorf("history: %d fingerprints for %d files", len(after), len(p.rec.Files))
	}
	var files []fileRecord
	for i, f := range after {
		if f.Kind == "" {
			continue
		}
		if !f.Kind.valid() {
			return nil, fmt.Errorf("history: fingerprint of unknown kind %q", f.Kind)
		}
		fr := p.rec.Files[i]
		fr.After = f
		files = append(files, fr)
	}
	if len(files) == 0 {
		p.finish()
		return nil, nil
	}
	if isRename(p.rec.Files) && len(files) != len(p.rec.Files) {
		return nil, errors.New("history: a rename commits both its files or neither")
	}
	s := p.s
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, err := s.commit(&p.rec, files, false)
	if err != nil {
		return nil, err
	}
	p.finish()
	s.collect()
	return r.entries(), nil
}

// commit writes the record of a pending change (the store lock held).
func (s *Store) commit(p *pendingRecord, files []fileRecord, recovered bool) (*record, error) {
	id, err := s.nextID()
	if err != nil {
		return nil, err
	}
	r := &record{Version: versionOf(files), ID: id, Time: s.opts.Now().UTC(), Op: p.Op, Txn: p.Txn,
		Recovered: recovered, Thread: p.Thread, Files: files}
	if err := statefile.WriteJSON(s.path(entriesDir, id+".json"), r); err != nil {
		return nil, err
	}
	return r, nil
}

// Abort drops a pending change whose write did not happen.
func (p *Pending) Abort() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		return ErrFinished
	}
	p.finish()
	return nil
}

// finish removes the pending files, then releases the lock.
func (p *Pending) finish() {
	p.s.removePending(p.rec.Txn)
	p.held.Release()
	p.held = nil
}

// Probe gives what is at a path now, through the caller's own access to
// the workspace: its fingerprint (absent if nothing is there), or, with
// identity, for a directory its DirIdentity only, without reading what it
// holds (any other kind as without).
type Probe func(key string, identity bool) (Fingerprint, error)

// Recover settles the pending changes of processes that died between
// Begin and Commit. current gives a file's fingerprint now. A file still
// as it was before is left out (so is one for which current gives the
// zero Fingerprint); the others are committed, marked Recovered, with
// their current fingerprint as After. A directory rename happened unless
// the directory is still at the path it was to leave: then both its files
// are committed (with identities, no tree read), else both dropped. A
// change whose files all are as they were is dropped. A pending change
// whose fingerprints cannot be taken stays for a later Recover. Recover
// returns the number of entries it committed. Pending changes of live
// processes are left alone.
func (s *Store) Recover(current Probe) (int, error) {
	txns, _, err := s.pendingTxns()
	if err != nil || len(txns) == 0 {
		return 0, err
	}
	unlock, err := s.lock()
	if err != nil {
		return 0, err
	}
	defer unlock()
	committed, err := s.committedTxns()
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, txn := range txns {
		orphan, held := s.tryOrphan(txn)
		if !orphan {
			continue
		}
		err := s.recoverOne(txn, committed, current, &n)
		if err != nil {
			errs = append(errs, err)
		}
		held.Release()
	}
	s.collect()
	return n, errors.Join(errs...)
}

func (s *Store) recoverOne(txn string, committed map[string]bool, current Probe, n *int) error {
	p, err := s.loadPending(txn)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, errNewer) {
		return nil
	}
	if err != nil || committed[txn] {
		// Damaged, or committed just before its process died.
		s.removePending(txn)
		return nil
	}
	var files []fileRecord
	for _, fr := range p.Files {
		cur, err := current(string(fr.Key), fr.Rename != "")
		if err != nil {
			return fmt.Errorf("history: recovering %s: %w", fr.Path, err)
		}
		if fr.Rename == "" && (cur.Kind == "" || cur.Same(fr.Before.Fingerprint())) {
			continue
		}
		fr.After = cur
		files = append(files, fr)
	}
	if isRename(files) && !renameHappened(files) {
		files = nil // both files of a rename, or neither
	}
	if len(files) > 0 {
		if _, err := s.commit(p, files, true); err != nil {
			return err
		}
		*n += len(files)
	}
	s.removePending(txn)
	return nil
}

// isRename reports whether files are those of a directory rename.
func isRename(files []fileRecord) bool {
	for _, f := range files {
		if f.Rename != "" {
			return true
		}
	}
	return false
}

// renameHappened reports, for the files of a directory rename with their
// current fingerprints as After, whether the directory left its path:
// the path it was to leave no longer holds it. A fingerprint the probe
// could not give settles nothing: the rename is taken as not made.
func renameHappened(files []fileRecord) bool {
	for _, f := range files {
		if f.After.Kind == "" {
			return false
		}
	}
	for _, f := range files {
		if f.Rename == RenameFrom {
			return !f.After.Same(f.Before.Fingerprint())
		}
	}
	return false
}

// committedTxns is the set of txns that have a record.
func (s *Store) committedTxns() (map[string]bool, error) {
	ids, err := s.recordIDs()
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, id := range ids {
		if r, err := s.loadRecord(id); err == nil && r != nil {
			m[r.Txn] = true
		}
	}
	return m, nil
}
