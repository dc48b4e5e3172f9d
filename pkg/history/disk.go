package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

const (
	// version is that of the records ws writes; one with a directory
	// rename is renameVersion, which a ws that knows no renames skips
	// (and keeps) as written by a newer ws, rather than remove it as
	// damaged; one with the rename of a file (too big to keep) is
	// fileRenameVersion, which a ws that knows only directory renames
	// skips alike. Records of every version are read.
	version           = 1
	renameVersion     = 2
	fileRenameVersion = 3
	lockName          = "lock"
	entriesDir        = "entries"
	pendingDir        = "pending"
	blobsDir          = "blobs"
	idLen             = 20
	txnLen            = 32
	// orphanTTL is how long the pending change of a dead process waits
	// for Recover before a collection removes it anyway.
	orphanTTL = 7 * 24 * time.Hour
)

// errNewer marks a record written by a newer ws: skipped, never removed,
// and while one is there no blob is collected (its references are unknown).
var errNewer = errors.New("written by a newer version of ws")

// record is one committed change: entries/<id>.json.
type record struct {
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Op        Op        `json:"op"`
	Txn       string    `json:"txn"` // the pending change it came from
	Recovered bool      `json:"recovered,omitempty"`
	// Thread is the thread the change was made for (Options.Thread).
	Thread statefile.String `json:"thread,omitempty"`
	Files  []fileRecord     `json:"files"`
}

// fileRecord is one file of a change.
type fileRecord struct {
	Key          statefile.String `json:"key"` // bytes kept: a name need not be UTF-8
	Path         statefile.String `json:"path"`
	Undoes       string           `json:"undoes,omitempty"`
	Before       Kept             `json:"before"`
	Manifest     string           `json:"manifest,omitempty"` // blob of a directory's nodes
	ManifestSize int64            `json:"manifest_size,omitempty"`
	After        Fingerprint      `json:"after"`
	MadeDirs     int              `json:"made_dirs,omitempty"`
	Rename       Rename           `json:"rename,omitempty"`
}

// pendingRecord is a change begun and not committed: pending/<txn>.json.
type pendingRecord struct {
	Version int              `json:"version"`
	Txn     string           `json:"txn"`
	Begun   time.Time        `json:"begun"`
	Op      Op               `json:"op"`
	Thread  statefile.String `json:"thread,omitempty"`
	Files   []fileRecord     `json:"files"` // After unset
}

// manifest is a kept directory's nodes, stored as a blob.
type manifest struct {
	Nodes []storedNode `json:"nodes"`
}

func (s *Store) path(parts ...string) string {
	return filepath.Join(append([]string{s.dir}, parts...)...)
}

func validID(id string) bool {
	if len(id) != idLen || !allDigits(id) {
		return false
	}
	_, err := strconv.ParseUint(id, 10, 64)
	return err == nil
}

func validTxn(txn string) bool { return len(txn) == txnLen && isHex(txn) }

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// versionOf is the version of a record of files.
func versionOf(files []fileRecord) int {
	for _, f := range files {
		if f.Rename == RenameFrom && f.Before.Kind == KindFile {
			return fileRenameVersion
		}
	}
	if isRename(files) {
		return renameVersion
	}
	return version
}

func (f *fileRecord) valid() bool {
	k := f.Before
	if !validKey(string(f.Key)) || !k.Kind.valid() || f.After.Kind != "" && !f.After.Kind.valid() || !f.Rename.valid() {
		return false
	}
	if f.Rename == RenameFrom {
		return (k.Kind == KindDir || k.Kind == KindFile) && k.Inode != 0 && f.Manifest == "" && f.MadeDirs == 0 && !k.TooLarge
	}
	if f.Undoes != "" && !validID(f.Undoes) {
		return false
	}
	if k.SHA256 != "" && !isSHA(k.SHA256) || f.Manifest != "" && !isSHA(f.Manifest) {
		return false
	}
	if k.Kind == KindFile && !k.TooLarge && k.SHA256 == "" {
		return false
	}
	if k.Kind == KindDir && !k.TooLarge && f.Manifest == "" {
		return false
	}
	return true
}

func (r *record) valid(id string) bool {
	if r.Version != versionOf(r.Files) || r.ID != id || !r.Op.valid() || !validTxn(r.Txn) || !validFiles(r.Files) {
		return false
	}
	for i := range r.Files {
		if r.Files[i].After.Kind == "" {
			return false
		}
	}
	return true
}

func (p *pendingRecord) valid(txn string) bool {
	return p.Version == versionOf(p.Files) && p.Txn == txn && p.Op.valid() && validFiles(p.Files)
}

// validFiles reports whether the files of a change are valid: one or
// more, each valid, and those of a rename its two parts.
func validFiles(files []fileRecord) bool {
	if len(files) == 0 {
		return false
	}
	for i := range files {
		if !files[i].valid() {
			return false
		}
	}
	if isRename(files) {
		return len(files) == 2 && files[0].Rename != "" && files[1].Rename != "" && files[0].Rename != files[1].Rename
	}
	return true
}

// recordIDs lists the ids in entries/, oldest first.
func (s *Store) recordIDs() ([]string, error) {
	des, err := statefile.List(s.path(entriesDir))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range des {
		if id, ok := strings.CutSuffix(d.Name(), ".json"); ok && validID(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// loadRecord reads one record: nil and no error when it is missing
// (dropped meanwhile); ErrCorrupt when it cannot be decoded.
func (s *Store) loadRecord(id string) (*record, error) {
	var r record
	err := s.readStored(&r, entriesDir, "entry", id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// loadPending reads one pending change.
func (s *Store) loadPending(txn string) (*pendingRecord, error) {
	var p pendingRecord
	if err := s.readStored(&p, pendingDir, "pending change", txn); err != nil {
		return nil, err
	}
	return &p, nil
}

// stored is a record or a pending change, as readStored reads it.
type stored interface {
	storedVersion() int
	valid(name string) bool
}

func (r *record) storedVersion() int        { return r.Version }
func (p *pendingRecord) storedVersion() int { return p.Version }

// readStored reads dir/<name>.json into v: the read's error as it is;
// errNewer when a newer ws wrote it; ErrCorrupt when it does not decode or
// is not valid. what says in the error what kind of record it is.
func (s *Store) readStored(v stored, dir, what, name string) error {
	data, err := os.ReadFile(s.path(dir, name+".json"))
	if err != nil {
		return err
	}
	err = json.Unmarshal(data, v)
	if err == nil && v.storedVersion() > fileRenameVersion {
		return fmt.Errorf("%w: %s %s", errNewer, what, name)
	}
	if err != nil || !v.valid(name) {
		return fmt.Errorf("%w: %s %s", ErrCorrupt, what, name)
	}
	return nil
}

// pendingTxns lists the txns with a .json or a .lock in pending/.
func (s *Store) pendingTxns() (jsons, locks []string, err error) {
	des, err := statefile.List(s.path(pendingDir))
	if err != nil {
		return nil, nil, err
	}
	for _, d := range des {
		if txn, ok := strings.CutSuffix(d.Name(), ".json"); ok && validTxn(txn) {
			jsons = append(jsons, txn)
		} else if txn, ok := strings.CutSuffix(d.Name(), ".lock"); ok && validTxn(txn) {
			locks = append(locks, txn)
		}
	}
	return jsons, locks, nil
}

// nextID is one more than the newest id, or the clock if that is later.
func (s *Store) nextID() (string, error) {
	ids, err := s.recordIDs()
	if err != nil {
		return "", err
	}
	n := uint64(max(s.opts.Now().UnixNano(), 1))
	if len(ids) > 0 {
		last, err := strconv.ParseUint(ids[len(ids)-1], 10, 64)
		if err == nil && last >= n {
			n = last + 1
		}
	}
	return fmt.Sprintf("%0*d", idLen, n), nil
}

// writeBlob stores data under its hash unless the same bytes are there
// already (a damaged blob is replaced): synced, or for a change of many
// blobs left to one statefile.SyncFS after the last (see Begin).
func (s *Store) writeBlob(sha string, data []byte, sync bool) error {
	p := s.path(blobsDir, sha)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			return nil
		}
	}
	if !sync {
		return statefile.WriteUnsynced(p, data)
	}
	return statefile.Write(p, data)
}

// readBlob reads a blob and checks it against its hash.
func (s *Store) readBlob(sha string) ([]byte, error) {
	if !isSHA(sha) {
		return nil, fmt.Errorf("%w: bad blob name %q", ErrCorrupt, sha)
	}
	data, err := os.ReadFile(s.path(blobsDir, sha))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrGone
	}
	if err != nil {
		return nil, err
	}
	if Sum(data) != sha {
		return nil, fmt.Errorf("%w: blob %s does not match its hash", ErrCorrupt, sha)
	}
	return data, nil
}

func (s *Store) readManifest(sha string) ([]storedNode, error) {
	data, err := s.readBlob(sha)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: tree manifest %s", ErrCorrupt, sha)
	}
	for _, n := range m.Nodes {
		ok := validNodePath(string(n.Path))
		switch n.Kind {
		case KindFile:
			ok = ok && isSHA(n.SHA256)
		case KindSymlink, KindDir:
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("%w: tree manifest %s", ErrCorrupt, sha)
		}
	}
	return m.Nodes, nil
}

// lock takes the store's lock, waiting at most LockTimeout for another
// process to let it go. A process that dies releases it with it. The
// calls of this process (ws mcp runs many at once) take turns first, and
// their turns do not count against LockTimeout: each holds the lock
// briefly, and a queue of them is not another process holding it (before,
// the 200th of 200 parallel writes gave up on its undo record, saying the
// history was locked by another ws process).
func (s *Store) lock() (unlock func(), err error) {
	path := s.path(lockName)
	turn := inProcess(path)
	turn.Lock()
	l, err := statefile.Acquire(path, s.opts.LockTimeout)
	if err != nil {
		turn.Unlock()
		if errors.Is(err, statefile.ErrLockTimeout) {
			return nil, fmt.Errorf("%w (waited %s)", ErrLockTimeout, s.opts.LockTimeout)
		}
		return nil, err
	}
	return func() {
		l.Release()
		turn.Unlock()
	}, nil
}

// turns are the in-process mutexes of the stores' lock files, by path.
var turns sync.Map

func inProcess(path string) *sync.Mutex {
	m, _ := turns.LoadOrStore(path, new(sync.Mutex))
	return m.(*sync.Mutex)
}

// tryOrphan reports whether the process that began txn is gone: its lock
// file is missing, or can be locked. When it returns true with a lock,
// the caller holds it and must release it.
func (s *Store) tryOrphan(txn string) (orphan bool, held *statefile.Lock) {
	p := s.path(pendingDir, txn+".lock")
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	l, ok := statefile.TryAcquire(p)
	return ok, l
}

// removePending removes a pending change's files, the .json first: a
// .json always has its .lock beside it until it is gone.
func (s *Store) removePending(txn string) {
	os.Remove(s.path(pendingDir, txn+".json"))
	os.Remove(s.path(pendingDir, txn+".lock"))
}
