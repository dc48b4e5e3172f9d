// Package procstate keeps the records of background processes in the state
// directory: one directory per process (procs/<pid>-<start time>/) with
// record.json (what was started, by whom, where), exit.json (written once,
// when it ended) and the captured output logs. It also knows how to tell
// that a recorded process is still the one that was started: a pid plus the
// process start time from /proc, which a reused pid cannot match.
//
// It imports neither pkg/workspace nor pkg/render.
package procstate
