package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// Op names the tool that made a change.
type Op string

// The ops ws records.
const (
	OpWrite  Op = "write"
	OpEdit   Op = "edit"
	OpDelete Op = "delete"
	OpPatch  Op = "patch"
	OpUndo   Op = "undo"
	OpMove   Op = "move"
)

func (o Op) valid() bool {
	switch o {
	case OpWrite, OpEdit, OpDelete, OpPatch, OpUndo, OpMove:
		return true
	}
	return false
}

// Kind is what was (or is) at a path.
type Kind string

// The kinds of state a path can be in.
const (
	KindAbsent  Kind = "absent" // nothing: undo removes what is there
	KindFile    Kind = "file"
	KindSymlink Kind = "symlink"
	KindDir     Kind = "dir"
)

func (k Kind) valid() bool {
	switch k {
	case KindAbsent, KindFile, KindSymlink, KindDir:
		return true
	}
	return false
}

// Rename is the part a path plays in a directory, or a file too big to
// keep, renamed in one step (rename(2)): such a change has two files, the
// path the directory (or file) left (RenameFrom) and the path it took
// (RenameTo). What moved is not kept, as a tree or as bytes: the from
// file's Before is its identity (its inode, which a rename keeps, and,
// for a file, its size and mtime, which a rename keeps too), and undo
// renames it back. The to file's Before is what the rename replaced
// there: for a directory nothing or an empty directory; for a file
// nothing, a file or a symbolic link, kept as any change keeps it.
type Rename string

// The two parts of a rename.
const (
	RenameFrom Rename = "from"
	RenameTo   Rename = "to"
)

func (r Rename) valid() bool { return r == "" || r == RenameFrom || r == RenameTo }

// Defaults for Options' zero fields.
const (
	DefaultMaxEntryBytes = 16 << 20
	DefaultMaxTotalBytes = 256 << 20
	DefaultMaxEntries    = 1000
	DefaultLockTimeout   = 10 * time.Second
)

// Options bound a store. Zero fields take the defaults.
type Options struct {
	// MaxEntryBytes is the most one file's previous state may take (for a
	// directory, all its files together); a larger one is recorded as too
	// large to keep.
	MaxEntryBytes int64
	// MaxTotalBytes bounds all kept blobs; the oldest changes are dropped
	// to stay under it.
	MaxTotalBytes int64
	// MaxEntries bounds the number of entries (files) over all changes.
	MaxEntries int
	// LockTimeout is the longest a change waits for the store's lock.
	LockTimeout time.Duration
	// Now is the clock (time.Now by default).
	Now func() time.Time
	// Thread is the thread (ws --thread) the changes begun through the
	// store are made for, kept with each: "" for none.
	Thread string
}

// Store is the history directory of one workspace's state directory. Its
// methods are safe for concurrent use, by goroutines and by processes.
type Store struct {
	dir  string
	opts Options

	damaged atomic.Int64 // damaged records the queries passed over
}

// Damaged is how many damaged records (ones that do not decode) the
// store's queries have passed over so far: a caller compares it before
// and after a query to learn that the answer may be missing a change.
func (s *Store) Damaged() int64 { return s.damaged.Load() }

// Open returns the store in dir (e.g. <state>/history), created on the
// first change. MaxEntryBytes is lowered to MaxTotalBytes if above it.
func Open(dir string, opts Options) *Store {
	if opts.MaxEntryBytes <= 0 {
		opts.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if opts.MaxEntryBytes > opts.MaxTotalBytes {
		opts.MaxEntryBytes = opts.MaxTotalBytes
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{dir: dir, opts: opts}
}

// Options returns the store's bounds, defaults filled in. A caller can
// skip reading a file bigger than MaxEntryBytes and pass only its size.
func (s *Store) Options() Options { return s.opts }

// State is a path's state as the caller hands it to Begin, and as Content
// hands it back.
type State struct {
	Kind Kind
	Mode fs.FileMode // permission bits, setuid, setgid and sticky (KeptMode)
	// Owner is the owning user and group (nil: not known, as in records
	// made before owners were kept).
	Owner *Owner
	// Size is the file's size. It may be left 0 when Data is given; with
	// Data nil, a Size over MaxEntryBytes records the file as too large,
	// and so, with Tree nil, a directory whose files total it.
	Size    int64
	MtimeNS int64  // optional: shown by history, used by Recover without a hash
	Data    []byte // KindFile: the content
	Target  string // KindSymlink: the link's target
	Tree    []Node // KindDir: everything beneath, in any order
	// Inode and BirthNS are, for the directory or file of a rename
	// (RenameFrom), its inode number and birth time (0: not known): the
	// directory is known by them, its tree is not kept; the file by them
	// with its size and mtime, its bytes are not kept.
	Inode   uint64
	BirthNS int64
}

// Node is one path inside a directory's State.
type Node struct {
	Path   string      // slash-separated, relative to the directory
	Kind   Kind        // KindFile, KindSymlink or KindDir
	Mode   fs.FileMode // permission bits, setuid, setgid and sticky (KeptMode)
	Owner  *Owner      // nil: not known
	Data   []byte      // KindFile
	Target string      // KindSymlink
}

// Owner is a file's owning user and group, by number.
type Owner struct {
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
}

// KeptMode is the part of a mode the history keeps and an undo puts
// back: the permission bits, setuid, setgid and sticky.
func KeptMode(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// AbsentState is the state of a path with nothing at it.
func AbsentState() State { return State{Kind: KindAbsent} }

// FileState is the state of a regular file.
func FileState(data []byte, mode fs.FileMode, mtimeNS int64) State {
	return State{Kind: KindFile, Mode: mode, Size: int64(len(data)), MtimeNS: mtimeNS, Data: data}
}

// SymlinkState is the state of a symbolic link.
func SymlinkState(target string) State {
	return State{Kind: KindSymlink, Mode: 0o777, Size: int64(len(target)), Target: target}
}

// DirState is the state of a directory and everything beneath it.
func DirState(mode fs.FileMode, nodes []Node) State {
	return State{Kind: KindDir, Mode: mode, Tree: nodes}
}

// RenamedDirState is the state of a directory about to be renamed, as the
// from file of a rename keeps it: its mode, mtime and identity (inode
// number and birth time), not its tree.
func RenamedDirState(mode fs.FileMode, mtimeNS int64, inode uint64, birthNS int64) State {
	return State{Kind: KindDir, Mode: mode, MtimeNS: mtimeNS, Inode: inode, BirthNS: birthNS}
}

// RenamedFileState is the state of a regular file about to be renamed, as
// the from file of a rename keeps it: its mode, size, mtime and identity
// (inode number and birth time), not its bytes.
func RenamedFileState(mode fs.FileMode, size, mtimeNS int64, inode uint64, birthNS int64) State {
	return State{Kind: KindFile, Mode: mode, Size: size, MtimeNS: mtimeNS, Inode: inode, BirthNS: birthNS}
}

// Fingerprint identifies what is at a path without its bytes: what ws
// left there after a change (Entry.After), to tell whether it has changed
// since. The zero Fingerprint (no Kind) means "not changed" in Commit.
type Fingerprint struct {
	Kind    Kind   `json:"kind"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns,omitempty"`
	SHA256  string `json:"sha256,omitempty"` // file content; hash of a link target or of a tree
	// Inode and BirthNS identify a directory by its inode number and
	// birth time (0: not known) instead of its tree (what a directory
	// rename leaves; see Rename); a renamed file, with its size and
	// mtime, instead of its bytes.
	Inode   uint64 `json:"inode,omitempty"`
	BirthNS int64  `json:"birth_ns,omitempty"`
}

// Sum is the hex SHA-256 of data.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// AbsentFingerprint is the fingerprint of a path with nothing at it.
func AbsentFingerprint() Fingerprint { return Fingerprint{Kind: KindAbsent} }

// FileFingerprint is the fingerprint of a regular file with content data.
func FileFingerprint(data []byte, mtimeNS int64) Fingerprint {
	return Fingerprint{Kind: KindFile, Size: int64(len(data)), MtimeNS: mtimeNS, SHA256: Sum(data)}
}

// UnknownFingerprint is the fingerprint of something of kind k that
// could not be read: the same as no other (Same is never true of it), so
// that a change known to leave it is refused as changed since by undo,
// and taken back only when forced.
func UnknownFingerprint(k Kind) Fingerprint { return Fingerprint{Kind: k, Size: -1} }

// DirIdentity is the fingerprint of a directory by its identity alone
// (inode number and birth time, 0 when not known), without what it holds:
// what a directory rename compares.
func DirIdentity(inode uint64, birthNS int64) Fingerprint {
	return Fingerprint{Kind: KindDir, Inode: inode, BirthNS: birthNS}
}

// FileIdentity is the fingerprint of a regular file by its identity
// (inode number and birth time, 0 when not known), size and mtime, without
// its bytes: what a rename of a file too big to keep compares. A file
// written since has another inode (ws writes a new file and renames it
// over) or, written in place, another size or mtime.
func FileIdentity(size, mtimeNS int64, inode uint64, birthNS int64) Fingerprint {
	return Fingerprint{Kind: KindFile, Size: size, MtimeNS: mtimeNS, Inode: inode, BirthNS: birthNS}
}

// SymlinkFingerprint is the fingerprint of a symbolic link.
func SymlinkFingerprint(target string) Fingerprint {
	return Fingerprint{Kind: KindSymlink, Size: int64(len(target)), SHA256: Sum([]byte(target))}
}

// Fingerprint is the fingerprint of st. A file given by its size only
// has no hash; a directory's hash covers its nodes' paths, kinds and
// contents (not modes), whatever their order.
func (st State) Fingerprint() Fingerprint {
	switch st.Kind {
	case KindFile:
		if st.Inode != 0 {
			return FileIdentity(st.Size, st.MtimeNS, st.Inode, st.BirthNS)
		}
		if st.Data == nil && st.Size > 0 {
			return Fingerprint{Kind: KindFile, Size: st.Size, MtimeNS: st.MtimeNS}
		}
		return FileFingerprint(st.Data, st.MtimeNS)
	case KindSymlink:
		f := SymlinkFingerprint(st.Target)
		f.MtimeNS = st.MtimeNS
		return f
	case KindDir:
		if st.Inode != 0 {
			return DirIdentity(st.Inode, st.BirthNS)
		}
		nodes := make([]storedNode, len(st.Tree))
		for i, n := range st.Tree {
			nodes[i] = storeNode(n)
		}
		return dirFingerprint(nodes, st.MtimeNS)
	}
	return Fingerprint{Kind: st.Kind}
}

// Same reports whether f and g describe the same thing: same kind and,
// unless absent, same identity when both are known by theirs (same inode,
// and same birth time where both know it), which for a directory (of a
// rename) is enough; and same size and hash (or, when either lacks a
// hash, same nonzero mtime).
func (f Fingerprint) Same(g Fingerprint) bool {
	if f.Kind != g.Kind {
		return false
	}
	if f.Kind == KindAbsent {
		return true
	}
	if f.Inode != 0 && g.Inode != 0 {
		if !f.sameIdentity(g) {
			return false
		}
		if f.Kind == KindDir {
			return true
		}
	}
	if f.Size != g.Size {
		return false
	}
	if f.SHA256 != "" && g.SHA256 != "" {
		return f.SHA256 == g.SHA256
	}
	return f.MtimeNS != 0 && f.MtimeNS == g.MtimeNS
}

// sameIdentity reports whether f and g, both known by their identity,
// have the same inode, and the same birth time where both know it.
func (f Fingerprint) sameIdentity(g Fingerprint) bool {
	return f.Inode == g.Inode && (f.BirthNS == 0 || g.BirthNS == 0 || f.BirthNS == g.BirthNS)
}

// Kept is what an entry remembers of the previous state, without bytes.
type Kept struct {
	Kind    Kind        `json:"kind"`
	Mode    fs.FileMode `json:"mode"` // KeptMode
	Owner   *Owner      `json:"owner,omitempty"`
	Size    int64       `json:"size"` // a directory: all its files and link targets
	MtimeNS int64       `json:"mtime_ns,omitempty"`
	SHA256  string      `json:"sha256,omitempty"` // as in Fingerprint
	Target  string      `json:"target,omitempty"`
	Nodes   int         `json:"nodes,omitempty"`    // a directory: paths beneath it
	Inode   uint64      `json:"inode,omitempty"`    // a renamed directory or file (RenameFrom): its identity, no tree or bytes kept
	BirthNS int64       `json:"birth_ns,omitempty"` // with Inode: its birth time (0: not known)
	// TooLarge says the bytes were not kept (over a cap): the entry can be
	// listed but not undone.
	TooLarge bool `json:"too_large,omitempty"`
}

// Fingerprint is the fingerprint of the kept state.
func (k Kept) Fingerprint() Fingerprint {
	if k.Kind == KindAbsent {
		return AbsentFingerprint()
	}
	return Fingerprint{Kind: k.Kind, Size: k.Size, MtimeNS: k.MtimeNS, SHA256: k.SHA256, Inode: k.Inode, BirthNS: k.BirthNS}
}

// Entry is one file's part of a recorded change.
type Entry struct {
	// ID is the change's id, shared by all the files of one change (a
	// group); ids sort in commit order.
	ID   string    `json:"id"`
	Time time.Time `json:"time"` // the commit, UTC
	Op   Op        `json:"op"`
	Key  string    `json:"key"`  // the file's real absolute path
	Path string    `json:"path"` // its workspace-relative display path
	// Before is the state the change replaced: what undo puts back.
	Before Kept `json:"before"`
	// After is what the change left: undo refuses if the file differs.
	After Fingerprint `json:"after"`
	// Undoes is, for an OpUndo entry, the ID of the change it reverted.
	Undoes string `json:"undoes,omitempty"`
	// MadeDirs is how many of the file's nearest ancestors the change
	// created: undo removes those still empty.
	MadeDirs int `json:"made_dirs,omitempty"`
	// Recovered marks a change committed by Recover after its process
	// died: After is the file as Recover found it, not as ws wrote it.
	Recovered bool `json:"recovered,omitempty"`
	// Rename is the part the file plays in a directory rename, which
	// undo renames back (see Rename); empty for any other change.
	Rename Rename `json:"rename,omitempty"`
	// Thread is the thread the change was made for ("" for none).
	Thread string `json:"thread,omitempty"`

	manifest string // the blob of a kept directory's nodes
}

// Check reports whether the file is still as the change left it, given
// its current fingerprint: nil, or a *ChangedError that says how not.
func (e *Entry) Check(current Fingerprint) error {
	if e.After.Same(current) {
		return nil
	}
	return &ChangedError{Entry: e, Current: current, Reason: changeReason(e.After, current)}
}

func changeReason(was, now Fingerprint) string {
	switch {
	case now.Kind == KindAbsent:
		return "it has been deleted since"
	case was.Kind == KindAbsent:
		return "it has been created since"
	case was.Kind != now.Kind:
		return fmt.Sprintf("it is now a %s, not a %s", kindName(now.Kind), kindName(was.Kind))
	case was.Inode != 0 && now.Inode != 0 && !was.sameIdentity(now):
		return "it is another " + kindName(was.Kind) + " now, not the one ws moved there"
	case was.Size < 0: // UnknownFingerprint
		return "what the change left could not be read when it failed partway, so it may not be as the change left it"
	case was.Size != now.Size:
		return fmt.Sprintf("it has been modified since (%d bytes, was %d)", now.Size, was.Size)
	}
	return "it has been modified since"
}

func kindName(k Kind) string {
	switch k {
	case KindDir:
		return "directory"
	case KindSymlink:
		return "symbolic link"
	}
	return string(k)
}

// ChangedError says that a file is no longer as a recorded change left
// it, so undoing the change would lose what happened since.
type ChangedError struct {
	Entry   *Entry
	Current Fingerprint
	Reason  string // e.g. "it has been modified since (12 bytes, was 10)"
}

// Error says which file changed since which change, and how.
func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s has changed since ws's %s at %s: %s",
		e.Entry.Path, e.Entry.Op, e.Entry.Time.UTC().Format(time.RFC3339), e.Reason)
}

// Errors of the store; test with errors.Is.
var (
	// ErrTooLarge means the entry's previous bytes were over a cap, not kept.
	ErrTooLarge = errors.New("too large to keep")
	// ErrGone means the bytes were dropped (by the caps) after the entry was read.
	ErrGone = errors.New("no longer kept")
	// ErrCorrupt means kept bytes do not match their hash, or a record is damaged.
	ErrCorrupt = errors.New("history is corrupt")
	// ErrLockTimeout means another ws process held the store's lock too long.
	ErrLockTimeout = errors.New("history is locked by another ws process")
	// ErrFinished means the pending change was already committed or aborted.
	ErrFinished = errors.New("change already committed or aborted")
	// ErrRenamed means the entry is the from file of a rename: the
	// directory's tree (or the file's bytes) was not kept, it was renamed
	// (undo renames it back).
	ErrRenamed = errors.New("renamed in one step, not kept as a tree or bytes")
)

// storedNode is a Node as a tree manifest keeps it.
type storedNode struct {
	Path   statefile.String `json:"path"` // bytes kept: a name need not be UTF-8
	Kind   Kind             `json:"kind"`
	Mode   fs.FileMode      `json:"mode"`
	Owner  *Owner           `json:"owner,omitempty"`
	Size   int64            `json:"size,omitempty"`
	SHA256 string           `json:"sha256,omitempty"` // a file's blob
	Target statefile.String `json:"target,omitempty"`
}

func storeNode(n Node) storedNode {
	sn := storedNode{Path: statefile.String(n.Path), Kind: n.Kind, Mode: KeptMode(n.Mode), Owner: n.Owner}
	switch n.Kind {
	case KindFile:
		sn.Size = int64(len(n.Data))
		sn.SHA256 = Sum(n.Data)
	case KindSymlink:
		sn.Size = int64(len(n.Target))
		sn.Target = statefile.String(n.Target)
	}
	return sn
}

// dirFingerprint hashes nodes by path, kind and content, sorted by path.
func dirFingerprint(nodes []storedNode, mtimeNS int64) Fingerprint {
	sorted := append([]storedNode(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	var size int64
	for _, n := range sorted {
		content := n.SHA256
		if n.Kind == KindSymlink {
			content = Sum([]byte(n.Target))
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", n.Kind, n.Path, content)
		size += n.Size
	}
	return Fingerprint{Kind: KindDir, Size: size, MtimeNS: mtimeNS, SHA256: hex.EncodeToString(h.Sum(nil))}
}

// validNodePath reports whether p is a clean relative path below a tree
// (fs.ValidPath's rule, except that names need not be UTF-8: a directory
// holding such a name is kept like any other).
func validNodePath(p string) bool {
	if p == "" || p == "." {
		return false
	}
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return true
}

func isSHA(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func validKey(k string) bool { return filepath.IsAbs(k) && filepath.Clean(k) == k }
