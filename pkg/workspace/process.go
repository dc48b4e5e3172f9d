package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/tokens"
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
	State     string     `json:"state"` // running, exited, killed, timed_out, lost
	ExitCode  *int       `json:"exit_code"`
	Command   string     `json:"command"`
	Cwd       string     `json:"cwd"`
	Thread    string     `json:"thread,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	// Leftovers: the command ended, but processes it started still run
	// (its supervisor stays to reap them; kill stops them).
	Leftovers bool `json:"leftovers,omitempty"`
}

func processOf(e *procstate.Entry) Process {
	p := Process{PID: e.Record.PID, Command: e.Record.Command, Cwd: e.Record.Cwd, Thread: e.Record.Thread,
		StartedAt: e.Record.StartedAt, State: "running"}
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
		p.Leftovers = !e.Exit.Killed && e.Record.SupervisorRunning()
	case !e.Record.Running() && !e.Record.SupervisorRunning():
		p.State = "lost" // gone without its supervisor recording how
	}
	return p
}

func (w *Workspace) procStore() *procstate.Store { return procstate.Open(w.stateDir) }

// findProcess looks up a pid among this workspace's records.
func (w *Workspace) findProcess(pid string) (*procstate.Entry, error) {
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil || n <= 0 {
		return nil, nil
	}
	e, err := w.procStore().Find(w.fs.RealBase(), n)
	if err != nil {
		return nil, stateError(err)
	}
	return e, nil
}

func noProcess(pid string) error {
	return errs.NoSuchProcess(pid)
}

// ProcessOutput shows a background process's output, waiting for it to
// exit if asked. The exit code is shown once it has exited, and the record
// stays until `ws ps --prune`, so the output can be read again.
func (w *Workspace) ProcessOutput(ctx context.Context, req ProcessOutputRequest) (*ProcessOutputResult, error) {
	e, err := w.findProcess(req.PID)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, noProcess(req.PID)
	}
	waitedOut := false
	if req.Wait != nil && *req.Wait && e.Exit == nil {
		var deadline time.Time
		if req.WaitTimeout != nil && *req.WaitTimeout > 0 {
			// Beyond a year is "no limit" (and would overflow a Duration).
			if secs := *req.WaitTimeout; secs < 365*24*3600 {
				deadline = time.Now().Add(time.Duration(secs * float64(time.Second)))
			}
		}
		e, waitedOut, err = w.waitExit(ctx, e, deadline)
		if err != nil {
			return nil, err
		}
	}
	dir := w.procStore().Dir(e.Record.ID)
	outB, outDropped, err := procstate.ReadLog(dir, "stdout.log")
	if err != nil {
		return nil, stateError(err)
	}
	errB, errDropped, err := procstate.ReadLog(dir, "stderr.log")
	if err != nil {
		return nil, stateError(err)
	}
	tail := tailOf(req.Tail)
	limit := w.toolTokens(GetProcessOutput)
	out := streamText(outB, outDropped, tail, limit, tailHint(dialectOf(ctx)))
	errText := streamText(errB, errDropped, tail, limit, tailHint(dialectOf(ctx)))
	res := &ProcessOutputResult{Process: processOf(e), Stdout: outB, Stderr: errB}
	parts := streamParts(out, errText)
	switch {
	case len(parts) == 0 && e.Exit == nil:
		parts = []string{"(no output yet)"}
	case len(parts) == 0:
		parts = []string{"(no output)"}
	}
	if e.Exit != nil {
		parts = append(parts, "", "Exit code: "+strconv.Itoa(e.Exit.ExitCode))
	} else if waitedOut {
		parts = append(parts, "", fmt.Sprintf("[still running after waiting %ss; call again to keep waiting]", js.FormatNumber(*req.WaitTimeout)))
	}
	res.text = tokens.StripANSI(strings.Join(parts, "\n"))
	return res, nil
}

// waitExit polls until the process has an exit record, the deadline (zero:
// none) passes, or ctx ends. A process whose supervisor died without
// recording an exit is not waited for.
func (w *Workspace) waitExit(ctx context.Context, e *procstate.Entry, deadline time.Time) (*procstate.Entry, bool, error) {
	delay := 5 * time.Millisecond
	for {
		cur, err := w.procStore().Load(e.Record.ID)
		if err != nil {
			return nil, false, stateError(err)
		}
		if cur.Exit != nil || (!cur.Record.Running() && !cur.Record.SupervisorRunning()) {
			return cur, false, nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return cur, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, errs.Interrupted("waiting for process " + strconv.Itoa(e.Record.PID))
		case <-time.After(delay):
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// KillResult is the outcome of kill.
type KillResult struct {
	Process
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
	gone := errs.ProcessGone(req.PID)
	if e != nil && e.Exit != nil && !e.Exit.Killed && e.Record.SupervisorRunning() {
		return w.killLeftovers(ctx, e, req.PID)
	}
	if e == nil || e.Exit != nil || !e.Record.Running() {
		return nil, gone
	}
	rec := e.Record
	if rec.SupervisorRunning() {
		_ = syscall.Kill(rec.SupervisorPID, syscall.SIGTERM)
	} else {
		// No supervisor: signal the group ourselves, checking each time
		// that the pid is still the recorded process.
		procstate.SignalGroup(rec.PGID, syscall.SIGTERM)
		deadline := time.Now().Add(procstate.KillGrace)
		for rec.Running() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if rec.Running() {
			procstate.SignalGroup(rec.PGID, syscall.SIGKILL)
		}
		_ = w.procStore().WriteExit(rec.ID, &procstate.Exit{ExitCode: 128 + int(syscall.SIGTERM), Signal: int(syscall.SIGTERM), Killed: true, EndedAt: w.now().UTC()})
	}
	e, _, err = w.waitExit(ctx, e, time.Now().Add(procstate.KillGrace+3*time.Second))
	if err != nil {
		return nil, err
	}
	// The group is gone once its last members are reaped, and the
	// supervisor leaves when nothing is left to reap.
	for deadline := time.Now().Add(procstate.KillGrace + time.Second); (procstate.GroupAlive(rec.PGID) || rec.SupervisorRunning()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	dir := w.procStore().Dir(rec.ID)
	outB, outDropped, _ := procstate.ReadLog(dir, "stdout.log")
	errB, errDropped, _ := procstate.ReadLog(dir, "stderr.log")
	limit := w.toolTokens(KillProcess)
	parts := []string{"Process " + req.PID + " has been killed."}
	if out := streamText(outB, outDropped, 50, limit, ""); out != "" {
		parts = append(parts, "", "--- stdout (last output) ---", out)
	}
	if errText := streamText(errB, errDropped, 50, limit, ""); errText != "" {
		parts = append(parts, "", "--- stderr (last output) ---", errText)
	}
	if e.Exit != nil {
		parts = append(parts, "", "Exit code: "+strconv.Itoa(e.Exit.ExitCode))
	}
	return &KillResult{Process: processOf(e), textOut: textOut{tokens.StripANSI(strings.Join(parts, "\n"))}}, nil
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
			return nil, errs.Interrupted("stopping what process " + pid + " left running")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return &KillResult{Process: processOf(e), textOut: textOut{fmt.Sprintf(
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
	now         time.Time
}

// Text is a table: PID, STATE, EXIT, AGE, COMMAND, tab-separated.
func (r *PSResult) Text() string {
	var sb strings.Builder
	sb.WriteString("PID\tSTATE\tEXIT\tAGE\tCOMMAND")
	leftovers := false
	for _, p := range r.Processes {
		exit := "-"
		if p.ExitCode != nil {
			exit = strconv.Itoa(*p.ExitCode)
		}
		state := p.State
		if p.Leftovers {
			state += "*"
			leftovers = true
		}
		cmd := strings.Join(strings.Fields(p.Command), " ")
		fmt.Fprintf(&sb, "\n%d\t%s\t%s\t%s\t%s", p.PID, state, exit, age(r.now.Sub(p.StartedAt)), cmd)
	}
	if leftovers {
		sb.WriteString("\n(*: processes it started are still running; ws kill PID stops them)")
	}
	if len(r.Pruned) > 0 {
		fmt.Fprintf(&sb, "\n(pruned %d ended process record%s)", len(r.Pruned), plural(len(r.Pruned)))
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
	entries, err := w.procStore().List(w.fs.RealBase())
	if err != nil {
		return nil, stateError(err)
	}
	res := &PSResult{Processes: []Process{}, now: w.now()}
	if req.Prune != nil && *req.Prune {
		res.PrunedLocks = w.pruneLocks()
	}
	for _, e := range entries {
		p := processOf(e)
		if req.Prune != nil && *req.Prune && p.State != "running" {
			if err := w.procStore().Remove(e.Record.ID); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, stateError(err)
			}
			res.Pruned = append(res.Pruned, p.PID)
			continue
		}
		res.Processes = append(res.Processes, p)
	}
	return res, nil
}
