// Package procstate is ws's process layer. It keeps the records of
// background processes in the state directory: one directory per process
// (procs/<pid>-<start time>/) with record.json (what was started, by whom,
// where), exit.json (written once, when it ended) and the captured output
// logs. It tells that a recorded process is still the one that was started
// (a pid plus the start time from /proc, which a reused pid cannot match).
//
// It also runs processes: [RunForeground] runs a command in its own process
// group and stops what it leaves behind; [Start] and [Supervise] are the two
// ends of a background command's supervisor (ws re-executing itself as a
// child subreaper that captures the output, enforces the timeout and stops
// the whole process tree when asked).
//
// It imports neither pkg/workspace nor pkg/render.
package procstate
