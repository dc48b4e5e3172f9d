// Package history keeps the previous bytes of the files ws changes, so
// that a change can be undone (ws undo) and the kept versions listed
// (ws history).
//
// The package never reads the user's files: the workspace reads and writes
// them through its own sandboxed chokepoint and hands the bytes and
// metadata to the store, which hands them back.
//
// # Recording a change
//
// A change is recorded in two steps around the write. Begin, before the
// write, keeps the previous state (bytes and mode, "absent", a symlink
// target or a directory tree) on disk as a pending change; Commit, after
// the write, makes it an entry with the file's new fingerprint. A pending
// change is never shown, so a write that did not happen never appears,
// and the previous bytes are on disk before the file is touched, so a
// crash mid-write loses nothing: Recover later finds the pending change of
// a process that died, asks the caller for the file's current fingerprint,
// and drops the change (the file is as it was) or commits it, marked
// Recovered (the write happened).
//
// The files of one change (a patch touching three files) are one group:
// one ID, one record on disk, committed all at once, dropped all at once.
//
// A directory renamed in one step (ws move of a directory) is not kept as
// a tree: its change has two files, marked with their part (Rename), the
// path the directory left, whose Before is the directory's inode, and the
// path it took, whose Before is what was there (nothing, or an empty
// directory the rename replaced). Undo renames the directory back; its
// own change is a rename the other way, so redo works alike. Such records
// are written as version 2, which a ws that knows no renames passes over
// (and keeps) as written by a newer ws. A file too big to keep (over
// Options.MaxEntryBytes) renamed in one step is kept alike, known by its
// inode, size and mtime instead of its bytes, and what it replaced kept as
// any change keeps it; such records are version 3, which a ws that knows
// only directory renames passes over alike.
//
// # Undoing
//
// The store does not undo anything itself. To undo a change, the caller
// takes its group (LastGroup, or Group of Last(key).ID), checks every
// file with Entry.Check against its current fingerprint (refusing, with
// the ChangedError's reason, unless forced), gets each previous state with
// Content, and records the undo like any change: Begin(OpUndo, ...) with
// the states being replaced and Undoes set, the writes, Commit. The undo
// is then the newest change, so undoing again redoes; nothing is dropped.
//
// # On disk
//
//	<dir>/lock                  flock(2) taken by every change to the store
//	<dir>/entries/<id>.json     one committed change (all its files)
//	<dir>/pending/<txn>.json    a change begun and not yet committed
//	<dir>/pending/<txn>.lock    flock(2) held by the process that began it
//	<dir>/blobs/<sha256>        kept bytes (file contents, tree manifests)
//
// Ids are 20-digit decimal numbers (nanoseconds of the commit, or one
// more than the newest id), so names sort in commit order. Every file is
// written atomically (pkg/statefile). Blobs are content addressed, so a
// version kept twice is stored once, and a blob no record or pending
// change refers to is removed. Readers take no lock; a record that cannot
// be decoded is skipped (and removed by the next collection).
//
// # Bounds
//
// One file's previous state over Options.MaxEntryBytes, or one that would
// push its change over Options.MaxTotalBytes, is recorded as too large to
// keep: metadata only, so history can say so and undo can refuse. After
// each commit the oldest changes (whole groups) are dropped until the kept
// blobs total at most MaxTotalBytes and the entries number at most
// MaxEntries; the newest change is always kept.
package history
