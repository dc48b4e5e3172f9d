// Package statefile writes ws's own state files (read-tracker records,
// process records, the search index) atomically: a temporary file in the
// same directory, fsynced, renamed over the old one, then the directory
// fsynced. A reader sees the old content or the new, never a mix, and a
// crash leaves no partial file. Workspace files are written elsewhere
// (pkg/workspace), beneath the root.
//
// It also holds ws's one lock-file implementation ([Acquire],
// [AcquireSharedWait], [TryAcquire]): flock(2) on files in the state
// directory, with a bounded wait, for the write locks and the search index.
package statefile
