package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/tokens"
	"golang.org/x/sys/unix"
)

// ProcessOutputResult is a background process's captured output and state.
type ProcessOutputResult struct {
	Process
	Stdout Bytes `json:"stdout"`
	Stderr Bytes `json:"stderr"`
	textOut
}

// Process is the state of one background process, for data output.
type Process struct {
	PID       int        `json:"pid"`
	State     string     `json:"state"` // running, stopped, exited, killed, timed_out, lost
	ExitCode  *int       `json:"exit_code"`
	Command   Bytes      `json:"command"` // {"bytes": base64} when not UTF-8
	Cwd       Bytes      `json:"cwd"`
	Thread    Bytes      `json:"thread,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	// Leftovers: the command ended, but processes it started still run
	// (its supervisor stays to reap them; kill stops them).
	Leftovers bool `json:"leftovers,omitempty"`
	// TTY: the process runs on a terminal of its own (exec tty), which
	// has one output stream: stdout holds all of it, stderr only ws's
	// notes (a timeout).
	TTY bool `json:"tty,omitempty"`
	// Foreground: a foreground command's run, kept because its text left
	// output out (ws exec): it has ended, and is listed for ps-output.
	Foreground bool `json:"foreground,omitempty"`
	// Callbacks says how the config's backgroundProcesses callbacks fared
	// (ws ps only).
	Callbacks *procstate.CallbacksStatus `json:"callbacks,omitempty"`
}

// alive reports a process that has not ended: running, or stopped.
func (p *Process) alive() bool { return p.State == "running" || p.State == "stopped" }

func processOf(e *procstate.Entry) Process {
	p := Process{PID: e.Record.PID, Command: Bytes(e.Record.Command), Cwd: Bytes(e.Record.Cwd), Thread: Bytes(e.Record.Thread),
		StartedAt: e.Record.StartedAt, State: "running", TTY: e.Record.TTY, Foreground: e.Record.Foreground}
	switch {
	case e.Exit != nil:
		code := e.Exit.ExitCode
		p.ExitCode, p.EndedAt = &code, &e.Exit.EndedAt
		switch {
		case e.Exit.TimedOut:
			p.State = "timed_out"
		case e.Exit.Killed:
			p.State = "killed"
		default:
			p.State = "exited"
		}
		p.Leftovers = hasLeftovers(e)
	case e.Record.Stopped():
		p.State = "stopped" // by a signal: alive, running nothing until continued
	case !e.Record.Running() && !e.Record.SupervisorRunning():
		p.State = "lost" // gone without its supervisor recording how
	}
	return p
}

// hasLeftovers reports whether an exited command left processes running:
// its supervisor stays to reap them. Just after the exit is recorded the
// supervisor may still be on its way out with nothing left below it; that
// is no leftover.
func hasLeftovers(e *procstate.Entry) bool {
	return e.Exit != nil && !e.Exit.Killed && e.Record.SupervisorRunning() &&
		procstate.HasLiveDescendants(e.Record.SupervisorPID)
}

// loadState reads e's record again and whether its process has ended:
// an exit is recorded, or neither the process nor its supervisor runs.
// The liveness is looked at after the read, and a supervisor records the
// exit before it leaves, so a gone supervisor means reading again: the
// exit it wrote meanwhile is there. A record removed since e was read
// (ws destroy, ws ps --prune) is the error that says so.
func (w *Workspace) loadState(e *procstate.Entry) (*procstate.Entry, bool, error) {
	cur, err := w.reload(e)
	if err != nil || cur.Exit != nil {
		return cur, err == nil, err
	}
	if cur.Record.Running() || cur.Record.SupervisorRunning() {
		return cur, false, nil
	}
	cur, err = w.reload(e)
	return cur, err == nil, err
}

// reload reads e's record from the store again.
func (w *Workspace) reload(e *procstate.Entry) (*procstate.Entry, error) {
	cur, err := w.procStore().Load(e.Record.ID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errs.ProcessRemoved(strconv.Itoa(e.Record.PID))
	case err != nil:
		return nil, w.stateError(err)
	}
	return cur, nil
}

func (w *Workspace) procStore() *procstate.Store { return procstate.Open(w.stateDir) }

// findProcess looks up a pid among this workspace's records.
func (w *Workspace) findProcess(pid string) (*procstate.Entry, error) {
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil || n <= 0 {
		return nil, nil
	}
	e, err := w.procStore().Find(w.fs.RealBase(), n)
	var damaged *procstate.DamagedError
	switch {
	case errors.As(err, &damaged):
		return nil, errs.ProcessRecordDamaged(strconv.Itoa(n), damaged.ID, err)
	case err != nil:
		return nil, w.stateError(err)
	}
	return e, nil
}

// processOf is findProcess for a pid that must name a process of this
// workspace: none is the no-such-process error.
func (w *Workspace) processOf(pid string) (*procstate.Entry, error) {
	e, err := w.findProcess(pid)
	if err == nil && e == nil {
		err = noProcess(pid)
	}
	return e, err
}

// outputOf checks the filter of a process-output request and finds the
// process it names: the first steps of both ProcessOutput and Follow.
func (w *Workspace) outputOf(req ProcessOutputRequest) (*lineFilter, *procstate.Entry, error) {
	filter, err := compileFilter(req.Filter)
	if err != nil {
		return nil, nil, err
	}
	e, err := w.processOf(req.PID)
	if err != nil {
		return nil, nil, err
	}
	return filter, e, nil
}

// damagedCursor is the warning of a sinceLast read whose cursor (what
// the thread has been shown) cannot be read: everything shows again.
func damagedCursor(pid int) string {
	return fmt.Sprintf("the sinceLast position of process %d in the state directory is damaged: all its output is shown again", pid)
}

func noProcess(pid string) error {
	return errs.NoSuchProcess(pid)
}

// ProcessOutput shows a background process's output, waiting for it to
// exit if asked (waitTimeout alone implies wait). The exit code is shown
// once it has exited, and the record stays until `ws ps --prune`, so the
// output can be read again. sinceLast shows only what this thread has not
// been shown by an earlier sinceLast read (or a follow), and moves the
// thread's cursor to the end; filter keeps the lines that match.
func (w *Workspace) ProcessOutput(ctx context.Context, req ProcessOutputRequest) (*ProcessOutputResult, error) {
	filter, e, err := w.outputOf(req)
	if err != nil {
		return nil, err
	}
	waitedOut := false
	wait := req.Wait != nil && *req.Wait || req.Wait == nil && req.WaitTimeout != nil
	// lost: the process is gone, and no exit was recorded (its supervisor
	// was killed). The state is read before the output, as Follow does.
	lost := false
	switch {
	case wait && e.Exit == nil:
		e, waitedOut, err = w.waitExit(ctx, e, waitDeadline(req.WaitTimeout))
		if err != nil {
			return nil, err
		}
		lost = !waitedOut && e.Exit == nil
	case e.Exit == nil:
		var gone bool
		if e, gone, err = w.loadState(e); err != nil {
			return nil, err
		}
		lost = gone && e.Exit == nil
	}
	sinceLast := req.SinceLast != nil && *req.SinceLast
	tail := tailOf(req.Tail)
	out, err := w.readOutput(e, sinceLast, tail, filter != nil)
	if err != nil {
		return nil, err
	}
	out.stdout, out.stderr = filter.keep(out.stdout), filter.keep(out.stderr)
	limit := w.toolTokens(GetProcessOutput)
	hints := [2]cutHints{{tail: tailHint(dialectOf(ctx), sinceLast)}, {tail: tailHint(dialectOf(ctx), sinceLast)}}
	if dialectOf(ctx) == CLIFlags && !servedRemotely(ctx) {
		for i := range hints {
			hints[i].limit = logHint(w.procStore().Dir(e.Record.ID), procstate.LogNames[i])
		}
	}
	res := &ProcessOutputResult{Process: processOf(e), Stdout: out.stdout, Stderr: out.stderr}
	if lost {
		res.State = "lost"
	}
	parts := streamParts(out.text(0, tail, limit, hints[0]), out.text(1, tail, limit, hints[1]))
	if len(parts) == 0 {
		parts = []string{noOutputText(e.Exit != nil || lost, out.since, filter != nil)}
	}
	if e.Exit != nil {
		parts = append(parts, unkept(e.Exit)...)
		parts = append(parts, "", "Exit code: "+strconv.Itoa(e.Exit.ExitCode))
	} else if lost {
		parts = append(parts, "", lostText)
	} else if waitedOut {
		parts = append(parts, "", fmt.Sprintf("[still running after waiting %ss; call again to keep waiting]", js.FormatNumber(*req.WaitTimeout)))
	}
	res.text = tokens.StripANSI(strings.Join(parts, "\n"))
	return res, nil
}

// unkept is the parts that tell of output the supervisor could not
// write to the logs (the state directory's file system was full): a
// blank line and the notice, or none.
func unkept(x *procstate.Exit) []string {
	if x == nil || x.LostBytes <= 0 {
		return nil
	}
	return []string{"", fmt.Sprintf("[%d bytes of output could not be kept: the state directory's file system was full]", x.LostBytes)}
}

// lostText ends the output of a process that ended while nothing
// watched it (its supervisor was killed): how it ended is not known.
const lostText = "[the process is gone without an exit code: its supervisor was killed]"

// noOutputText stands for empty streams: Mastra's "(no output yet)" for a
// running process, ws's "(no output)" for an ended one; "new" with
// sinceLast, "matching" with a filter.
func noOutputText(exited, since, filtered bool) string {
	words := "output"
	if filtered {
		words = "matching output"
	}
	if since {
		words = "new " + words
	}
	if exited {
		return "(no " + words + ")"
	}
	return "(no " + words + " yet)"
}

// waitDeadline is the end of a wait of secs seconds; zero (no limit) for
// none, 0, or beyond a year (which would overflow a Duration).
func waitDeadline(secs *float64) time.Time {
	if secs == nil || *secs <= 0 || *secs >= 365*24*3600 {
		return time.Time{}
	}
	return time.Now().Add(time.Duration(*secs * float64(time.Second)))
}

// shownOutput is a process's output as one read shows it.
type shownOutput struct {
	stdout, stderr []byte
	// tails, when set, are the streams read from their ends: stdout and
	// stderr are then only their last lines (tails[i].Data).
	tails [2]*procstate.LogTail
	lost  [2]int64 // bytes before these that the reader will never see (dropped over the cap)
	since bool     // only what the reader had not seen
}

// text is stream i's text (see streamCut.text).
func (o *shownOutput) text(i, tail, limit int, h cutHints) string {
	if t := o.tails[i]; t != nil {
		return tailText(t, o.lost[i], tail, limit, h)
	}
	return cutStream([][]byte{o.stdout, o.stderr}[i], tail, limit).text(o.lost[i], h)
}

// logHint tells a shell user, in the token limit's notice, where the
// whole of a stream the limit cut is: its log file, or once the log has
// rotated (see procstate.Log) its two parts, the older first.
func logHint(dir, name string) string {
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path + ".1"); err == nil {
		return "what is kept of it is in " + wording.ShellWord(path+".1") + ", then " + wording.ShellWord(path)
	}
	return "all of it is in " + wording.ShellWord(path)
}

// readOutput reads a process's kept output: all of it, or (since) what
// this thread has not seen, moving the thread's cursor to its end. With
// tail > 0 and nothing to filter only the last tail lines of each stream
// are read (and the rest scanned for its line count): what the text
// shows, however large the logs.
func (w *Workspace) readOutput(e *procstate.Entry, since bool, tail int, filtered bool) (*shownOutput, error) {
	dir := w.procStore().Dir(e.Record.ID)
	var cur procstate.Cursor
	if since {
		c, err := procstate.ReadCursor(dir, w.thread)
		if err == nil {
			cur = c
		} else {
			w.warn(damagedCursor(e.Record.PID))
		}
	}
	res := &shownOutput{since: since}
	var next procstate.Cursor
	for i, s := range []struct {
		name string
		from int64
		data *[]byte
		end  *int64
	}{{procstate.LogNames[0], cur.Stdout, &res.stdout, &next.Stdout}, {procstate.LogNames[1], cur.Stderr, &res.stderr, &next.Stderr}} {
		// With since only what is new is read; without, s.from is 0.
		if tail > 0 && !filtered {
			t, err := procstate.ReadLogTail(dir, s.name, s.from, tail)
			if err != nil {
				return nil, w.stateError(err)
			}
			res.tails[i], *s.data, *s.end, res.lost[i] = t, t.Data, t.End, t.From-s.from
			continue
		}
		b, start, err := procstate.ReadLogFrom(dir, s.name, s.from)
		if err != nil {
			return nil, w.stateError(err)
		}
		*s.end = start + int64(len(b))
		res.lost[i] = start - s.from
		*s.data = b
	}
	if since && next != cur {
		_ = procstate.WriteCursor(dir, w.thread, next) // a cursor not moved shows output again: no failure
	}
	return res, nil
}

// lineFilter keeps the lines of a stream that match a regular expression;
// nil keeps everything.
type lineFilter struct{ re *regexp.Regexp }

func compileFilter(expr string) (*lineFilter, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, errs.BadFilter(err)
	}
	return &lineFilter{re}, nil
}

func (f *lineFilter) keep(b []byte) []byte {
	if f == nil || len(b) == 0 {
		return b
	}
	var out []byte
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		b = b[len(line):]
		if f.re.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			out = append(out, line...)
		}
	}
	return out
}

// waitExit polls until the process has an exit record, the deadline (zero:
// none) passes, or ctx ends. A process whose supervisor died without
// recording an exit is not waited for.
func (w *Workspace) waitExit(ctx context.Context, e *procstate.Entry, deadline time.Time) (*procstate.Entry, bool, error) {
	delay := 5 * time.Millisecond
	for {
		cur, gone, err := w.loadState(e)
		if err != nil {
			return nil, false, err
		}
		if gone {
			return cur, false, nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return cur, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, errs.InterruptedBy(context.Cause(ctx), "waiting for process "+strconv.Itoa(e.Record.PID))
		case <-time.After(delay):
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// KillResult is the outcome of kill.
type KillResult struct {
	Process
	Signal string `json:"signal_sent"` // the signal sent first: SIGTERM unless asked
	textOut
}

// Kill stops a running background process of this workspace: TERM to its
// process group and every process its supervisor still has, KILL after the
// grace period. A pid that is not a live record of this workspace, or whose
// start time no longer matches (the pid was reused), is refused and nothing
// is signalled.
func (w *Workspace) Kill(ctx context.Context, req KillRequest) (*KillResult, error) {
	e, err := w.findProcess(req.PID)
	if err != nil {
		return nil, err
	}
	sig, err := parseSignal(req.Signal)
	if err != nil {
		return nil, err
	}
	gone := errs.ProcessGone(req.PID)
	stops := sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGKILL
	if stops && e != nil && e.Exit != nil && hasLeftovers(e) {
		return w.killLeftovers(ctx, e, req.PID)
	}
	if e == nil || e.Exit != nil || !e.Record.Running() {
		return nil, gone
	}
	rec := e.Record
	if !stops {
		// Any other signal is only delivered (HUP to reload, USR1 …):
		// to the group (bwrap spared), with no escalation and no wait. A
		// stopped group is continued to take a HUP, as a shell's kill
		// does for a stopped job (a TERM or an INT is, below).
		procstate.StopSignal(rec.PGID, sig, rec.SpareLeader)
		if sig == syscall.SIGHUP {
			procstate.ContinueStopped(rec.PGID)
		}
		return &KillResult{Process: processOf(e), Signal: unix.SignalName(sig), textOut: textOut{
			fmt.Sprintf("Sent %s to process %s (and its process group).", unix.SignalName(sig), req.PID)}}, nil
	}
	if rec.SupervisorRunning() {
		// The supervisor stops the group and its whole tree: TERM or INT
		// first, KILL after the grace period; KILL at once when asked.
		ask := sig
		if sig == syscall.SIGKILL {
			ask = procstate.SignalKillNow
		}
		_ = syscall.Kill(rec.SupervisorPID, ask)
	} else {
		// No supervisor: signal the group ourselves, checking each time
		// that the pid is still the recorded process. Its status is not
		// ours to read: the exit recorded is the last signal sent.
		procstate.StopSignal(rec.PGID, sig, rec.SpareLeader)
		procstate.ContinueStopped(rec.PGID)
		deadline := time.Now().Add(procstate.KillGrace)
		for rec.Running() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		sent := sig
		if rec.Running() {
			procstate.SignalGroup(rec.PGID, syscall.SIGKILL)
			sent = syscall.SIGKILL
		}
		_ = w.procStore().WriteExit(rec.ID, &procstate.Exit{ExitCode: 128 + int(sent), Signal: int(sent), Killed: true, EndedAt: w.now().UTC()})
	}
	e, _, err = w.waitExit(ctx, e, time.Now().Add(killWait))
	if err != nil {
		return nil, err
	}
	// The group is gone once its last members are reaped, and the
	// supervisor leaves when nothing is left to reap.
	for deadline := time.Now().Add(procstate.KillGrace + time.Second); e.Exit != nil && (procstate.GroupAlive(rec.PGID) || rec.SupervisorRunning()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	// The last 50 lines of each stream, read from the ends of the logs.
	out, _ := w.readOutput(e, false, 50, false)
	if out == nil {
		out = &shownOutput{}
	}
	limit := w.toolTokens(KillProcess)
	parts := []string{"Process " + req.PID + " has been killed."}
	if e.Exit == nil {
		// The wait ran out: the process may be stopping still, or ignore
		// the signal (a KILL cannot be ignored, but a process stuck in
		// the kernel takes it late).
		parts[0] = notExitedText(dialectOf(ctx), req.PID, unix.SignalName(sig))
	}
	if text := out.text(0, 50, limit, cutHints{}); text != "" {
		name := "stdout"
		if e.Record.TTY {
			name = "terminal" // its one stream: stdout and stderr both
		}
		parts = append(parts, "", "--- "+name+" (last output) ---", text)
	}
	if text := out.text(1, 50, limit, cutHints{}); text != "" {
		parts = append(parts, "", "--- stderr (last output) ---", text)
	}
	if e.Exit != nil {
		parts = append(parts, unkept(e.Exit)...)
		parts = append(parts, "", "Exit code: "+strconv.Itoa(e.Exit.ExitCode))
	}
	return &KillResult{Process: processOf(e), Signal: unix.SignalName(sig), textOut: textOut{tokens.StripANSI(strings.Join(parts, "\n"))}}, nil
}

// killWait bounds kill's wait for the process to end: past the grace
// period, a little more for the KILL (a variable for tests).
var killWait = procstate.KillGrace + 3*time.Second

// notExitedText starts the text of a kill whose wait for the exit ran
// out: the process may still be running.
func notExitedText(d Dialect, pid, sig string) string {
	how := "its output, read with wait, shows when it ends"
	if d == CLIFlags {
		how = "ws ps shows its state; ws kill " + pid + " --signal KILL stops it at once"
	}
	return fmt.Sprintf("Process %s was sent %s and has not exited yet: it may still be running (%s).", pid, sig, how)
}

// parseSignal reads a signal for kill: a name with or without SIG, in
// any case, or a number; "" is TERM.
func parseSignal(s string) (syscall.Signal, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return syscall.SIGTERM, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n > 0 && n <= 64 {
			return syscall.Signal(n), nil
		}
		return 0, errs.BadSignal(s)
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, errs.BadSignal(s)
}

// killLeftovers stops what an exited command left running (a daemon that
// left its group, a child still holding its output): its supervisor, still
// there to reap them, gets TERM and stops its whole tree.
func (w *Workspace) killLeftovers(ctx context.Context, e *procstate.Entry, pid string) (*KillResult, error) {
	rec := e.Record
	_ = syscall.Kill(rec.SupervisorPID, syscall.SIGTERM)
	for deadline := time.Now().Add(procstate.KillGrace + 3*time.Second); rec.SupervisorRunning() && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return nil, errs.InterruptedBy(context.Cause(ctx), "stopping what process "+pid+" left running")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return &KillResult{Process: processOf(e), Signal: "SIGTERM", textOut: textOut{fmt.Sprintf(
		"Process %s had already exited (exit code %d); the processes it left running have been stopped.", pid, e.Exit.ExitCode)}}, nil
}

// PSRequest is the input of ps (a ws tool of its own).
type PSRequest struct {
	Prune *bool `json:"prune,omitempty" desc:"Remove the records of processes that have ended, and unused write-lock files."`
}

// PSResult lists the background processes of this workspace.
type PSResult struct {
	Processes []Process `json:"processes"`
	Pruned    []int     `json:"pruned,omitempty"`
	// PrunedLocks counts the unused write-lock files removed.
	PrunedLocks int `json:"pruned_locks,omitempty"`
	// Skipped counts the process records that cannot be read (damaged):
	// they are not listed, and a warning names them.
	Skipped int `json:"skipped,omitempty"`
	// PrunedDamaged counts the damaged records --prune removed (their
	// processes had ended).
	PrunedDamaged int `json:"pruned_damaged,omitempty"`
	now           time.Time
}

// Text is a table: PID, STATE, EXIT, AGE, COMMAND, tab-separated.
func (r *PSResult) Text() string {
	var sb strings.Builder
	sb.WriteString("PID\tSTATE\tEXIT\tAGE\tCOMMAND")
	leftovers, stopped := false, 0
	var kept []string
	for _, p := range r.Processes {
		if p.Foreground {
			kept = append(kept, strconv.Itoa(p.PID))
		}
		exit := "-"
		if p.ExitCode != nil {
			exit = strconv.Itoa(*p.ExitCode)
		}
		state := p.State
		if state == "stopped" && stopped == 0 {
			stopped = p.PID
		}
		if p.Leftovers {
			state += "*"
			leftovers = true
		}
		cmd := wording.OneLine(strings.TrimSpace(string(p.Command)))
		fmt.Fprintf(&sb, "\n%d\t%s\t%s\t%s\t%s", p.PID, state, exit, age(r.now.Sub(p.StartedAt)), cmd)
	}
	if leftovers {
		sb.WriteString("\n(*: processes it started are still running; ws kill PID stops them)")
	}
	if len(kept) > 0 {
		fmt.Fprintf(&sb, "\n(%s: %s in the foreground whose output ws exec cut, kept for ws ps-output; the newest %d stay until ws ps --prune)",
			strings.Join(kept, ", "), wording.Plural(len(kept), "a run", "runs"), procstate.KeptRuns)
	}
	if stopped != 0 {
		fmt.Fprintf(&sb, "\n(stopped: a signal stopped it, and it waits to be continued; ws kill %d --signal CONT does that)", stopped)
	}
	for _, p := range r.Processes {
		if c := p.Callbacks; c != nil && c.Failed() {
			sb.WriteString("\n" + callbackNote(p.PID, c))
		}
	}
	if len(r.Pruned) > 0 {
		fmt.Fprintf(&sb, "\n(pruned %d ended process %s)", len(r.Pruned), wording.Plural(len(r.Pruned), "record", "records"))
	}
	if r.PrunedDamaged > 0 {
		fmt.Fprintf(&sb, "\n(removed %d damaged process %s of ended processes)", r.PrunedDamaged, wording.Plural(r.PrunedDamaged, "record", "records"))
	}
	return sb.String()
}

func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// PS lists this workspace's background processes; with prune it removes
// the records of those that have ended.
func (w *Workspace) PS(ctx context.Context, req PSRequest) (*PSResult, error) {
	entries, damaged, err := w.procStore().ListSkipped(w.fs.RealBase())
	if err != nil {
		return nil, w.stateError(err)
	}
	prune := req.Prune != nil && *req.Prune
	res := &PSResult{Processes: []Process{}, now: w.now()}
	if prune {
		res.PrunedLocks = w.pruneLocks()
		left := damaged[:0]
		for _, id := range damaged {
			gone, err := w.procStore().RemoveDamaged(id)
			if err != nil {
				return nil, w.stateError(err)
			}
			if gone {
				res.PrunedDamaged++
			} else {
				left = append(left, id)
			}
		}
		damaged = left
	}
	res.Skipped = len(damaged)
	if n := len(damaged); n > 0 {
		var names []string
		for i, id := range damaged {
			if i == 5 {
				names = append(names, fmt.Sprintf("and %d more", n-i))
				break
			}
			names = append(names, "procs/"+id)
		}
		hint := "ws ps --prune removes those whose process has ended"
		if prune {
			hint = "their processes still run; ws ps --prune removes them once they have ended"
		}
		w.warn(fmt.Sprintf("skipped %d damaged process %s in the state directory (%s): %s",
			n, wording.Plural(n, "record", "records"), strings.Join(names, ", "), hint))
	}
	for _, e := range entries {
		p := processOf(e)
		p.Callbacks = w.procStore().LoadCallbacks(e.Record.ID)
		// A record stays while what the command left running runs: only
		// through it can kill or destroy reach those.
		if prune && !p.alive() && !p.Leftovers {
			if err := w.procStore().Remove(e.Record.ID); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, w.stateError(err)
			}
			res.Pruned = append(res.Pruned, p.PID)
			continue
		}
		res.Processes = append(res.Processes, p)
	}
	return res, nil
}

// callbackNote is ps's line about the callbacks of a process that failed
// or missed output.
func callbackNote(pid int, c *procstate.CallbacksStatus) string {
	var parts []string
	for _, x := range []struct {
		name string
		st   *procstate.CallbackStatus
	}{{"onStdout", c.OnStdout}, {"onStderr", c.OnStderr}, {"onExit", c.OnExit}} {
		if x.st == nil {
			continue
		}
		if x.st.Failures > 0 {
			parts = append(parts, fmt.Sprintf("%s failed %d of %d runs (last: %s)", x.name, x.st.Failures, x.st.Runs, x.st.LastError))
		}
		if x.st.DroppedBytes > 0 {
			parts = append(parts, fmt.Sprintf("%s was too slow: %d bytes of output not handed to it", x.name, x.st.DroppedBytes))
		}
	}
	return fmt.Sprintf("(callbacks of %d: %s)", pid, strings.Join(parts, "; "))
}
