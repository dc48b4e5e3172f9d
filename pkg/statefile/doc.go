// Package statefile writes ws's own state files (read-tracker records,
// process records, the search index) atomically: a temporary file in the
// same directory, fsynced, renamed over the old one, then the directory
// fsynced. A reader sees the old content or the new, never a mix, and a
// crash leaves no partial file. Workspace files are written elsewhere
// (pkg/workspace), beneath the root.
package statefile
