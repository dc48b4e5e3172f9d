package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/statefile"
	"github.com/wstools/ws/pkg/tokens"
)

// ExecResult is the outcome of a command.
type ExecResult struct {
	Command    Bytes `json:"command"` // {"bytes": base64} when not UTF-8, as the output
	Cwd        Bytes `json:"cwd"`
	Background bool  `json:"background"`
	PID        int   `json:"pid,omitempty"`
	// ExitCode is the command's status; null for a background command,
	// which has only started (ps-output reports how it ends).
	ExitCode   *int  `json:"exit_code"`
	Signal     int   `json:"signal,omitempty"`
	TimedOut   bool  `json:"timed_out"`
	Stdout     Bytes `json:"stdout"`
	Stderr     Bytes `json:"stderr"`
	DurationMs int64 `json:"duration_ms"`
	// KeptPID: the text left output out, which ws kept as a record of its
	// own (a subcommand's run only): ps-output of this pid reads it all.
	KeptPID int `json:"kept_pid,omitempty"`
	textOut
}

// ExitStatus is the status `ws exec` exits with: the command's own.
func (r *ExecResult) ExitStatus() int {
	if r.ExitCode == nil {
		return 0
	}
	return *r.ExitCode
}

// stripTailPipe takes a trailing `| tail -N` or `| tail -n N` off a
// command, which Mastra does to apply it to the captured output instead:
// what the regexp `\|\s*tail\s+(?:-n\s+)?(-?\d+)\s*$` matches (the test
// holds the two together), read by hand, as it is on every command ws runs.
// Only the last '|' can start such a match: no '|' may follow it.
func stripTailPipe(command string) (string, int, bool) {
	bar := strings.LastIndexByte(command, '|')
	if bar < 0 {
		return command, 0, false
	}
	rest := strings.TrimLeft(command[bar+1:], tailSpace)
	rest, ok := strings.CutPrefix(rest, "tail")
	if !ok || rest == "" || strings.IndexByte(tailSpace, rest[0]) < 0 {
		return command, 0, false
	}
	rest = strings.TrimLeft(rest, tailSpace)
	if after, ok := strings.CutPrefix(rest, "-n"); ok && after != "" && strings.IndexByte(tailSpace, after[0]) >= 0 {
		rest = strings.TrimLeft(after, tailSpace)
	}
	num := strings.TrimRight(rest, tailSpace)
	digits := strings.TrimPrefix(num, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return command, 0, false
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n == 0 {
		return command, 0, false
	}
	if n < 0 {
		n = -n
	}
	return strings.TrimSpace(command[:bar]), int(min(n, 1<<31)), true
}

// tailSpace is what RE2's \s matches.
const tailSpace = "\t\n\f\r "

// tailOf is a tail parameter as Mastra reads it: absent → 200, negative →
// its absolute value, 0 → everything.
func tailOf(p *int) int {
	if p == nil {
		return defaultTail
	}
	if *p < 0 {
		return -*p
	}
	return *p
}

// Exec runs a shell command: in the foreground, returning its output and
// exit status, or in the background under a supervisor.
func (w *Workspace) Exec(ctx context.Context, req ExecRequest) (*ExecResult, error) {
	if req.Command == "" {
		return nil, errs.EmptyCommand()
	}
	sb := w.sandbox()
	cwd, err := sb.Dir(req.Cwd)
	if err != nil {
		return nil, sandboxError(err)
	}
	for _, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, errs.BadEnv(kv)
		}
	}
	background := req.Background != nil && *req.Background
	if req.StdinPipe != nil && *req.StdinPipe && !background {
		if dialectOf(ctx) == CLIFlags {
			return nil, errs.Invalid("--stdin-pipe", "needs --background (a foreground command reads ws's stdin with --stdin)")
		}
		return nil, errs.Invalid("stdinPipe", "needs background=true")
	}
	if req.TTY != nil && *req.TTY && !background {
		if dialectOf(ctx) == CLIFlags {
			return nil, errs.Invalid("--tty", "needs --background (only a background command runs on a terminal of its own)")
		}
		return nil, errs.Invalid("tty", "needs background=true")
	}
	if background {
		if req.Stdin != nil {
			return nil, errs.Invalid("--stdin", "is for foreground commands; a background command takes input through --stdin-pipe and ws send")
		}
		return w.startBackground(ctx, sb, req, cwd)
	}
	command, tail := req.Command, tailOf(req.Tail)
	// A tail asked for, with --tail or a trailing | tail -N, is what was
	// asked for: only the default one's cut is told how to see the rest.
	askedTail := req.Tail != nil
	if c, n, ok := stripTailPipe(command); ok {
		command, tail, askedTail = c, n, true
	}
	argv, err := sb.Argv(command, cwd)
	if err != nil {
		return nil, sandboxError(err)
	}
	timeout := w.commandTimeout(req.Timeout)
	start := w.now()
	run, err := procstate.RunForeground(ctx, procstate.Foreground{Argv: argv, Env: sb.Env(req.Env), Dir: cwd,
		Timeout: timeout, Stdin: req.Stdin, NoTerminal: sb.Confined(), SpareLeader: sb.Bwrapped()})
	if err != nil {
		return nil, errs.CommandFailed(err)
	}
	res := &ExecResult{
		Command: Bytes(req.Command), Cwd: Bytes(cwd), ExitCode: &run.ExitCode, Signal: run.Signal, TimedOut: run.TimedOut,
		Stdout: run.Stdout, Stderr: run.Stderr, DurationMs: w.now().Sub(start).Milliseconds(),
	}
	stderr := run.Stderr
	if run.TimedOut {
		stderr = append(stderr, "\nProcess timed out after "+js.FormatNumber(float64(timeout)/float64(time.Millisecond))+"ms"...)
	}
	limit := w.toolTokens(ExecuteCommand)
	cuts := [2]streamCut{cutStream(run.Stdout, tail, limit), cutStream(stderr, tail, limit)}
	var hints [2]cutHints
	if dialectOf(ctx) == CLIFlags {
		hints, res.KeptPID = w.keptHints(ctx, req, cwd, start, run, cuts, askedTail)
	}
	out := cuts[0].text(run.Dropped[0], hints[0])
	errText := cuts[1].text(run.Dropped[1], hints[1])
	res.text = tokens.StripANSI(execText(out, errText, run.ExitCode))
	return res, nil
}

// streamCut is one captured stream of a command prepared for its text:
// s, each line as a terminal leaves it (a progress bar redrawn with
// carriage returns shows its last drawing, tokens.Redraw); t, its newest
// lines (the tail); l, those within the token limit (tokens.Sandwich).
type streamCut struct {
	s, t, l string
	limit   int
}

func cutStream(b []byte, tail, limit int) streamCut {
	s := tokens.Redraw(jsString(b))
	return tailCutStream(s, tokens.TailLines(s, tail), limit)
}

func tailCutStream(s, t string, limit int) streamCut {
	return streamCut{s, t, tokens.Sandwich(t, limit), limit}
}

// tailCut reports that the tail left lines out; overLimit, that the
// token limit cut what the tail kept.
func (c streamCut) tailCut() bool   { return c.t != c.s }
func (c streamCut) overLimit() bool { return c.l != c.t }

// cutHints say how to see what a stream's text left out: tail in the
// tail's notice, limit in the token limit's.
type cutHints struct{ tail, limit string }

// text is the stream's text: its tail, then the token sandwich, each
// notice with its hint, and the notice of output dropped over the
// per-stream cap.
func (c streamCut) text(dropped int64, h cutHints) string {
	t := c.l
	if h.tail != "" && c.tailCut() {
		t = strings.Replace(c.t, " lines]\n", " lines; "+h.tail+"]\n", 1)
		t = tokens.SandwichHint(t, c.limit, h.limit)
	} else if h.limit != "" {
		t = tokens.SandwichHint(c.t, c.limit, h.limit)
	}
	if dropped > 0 && t != "" {
		t = fmt.Sprintf("[%d bytes of earlier output were dropped (over the per-stream cap)]\n", dropped) + t
	}
	return t
}

// keptHints are a subcommand's hints for a foreground run whose text
// leaves output out that was not asked to be left out: cut by the
// default tail, or by the token limit. Rather than say to run it again
// (it may take long, or not do the same twice), ws keeps the run's
// output as a record (procstate.KeepRun, the newest 10 a workspace) and
// says where it is: ps-output reads it, --filter picks lines from it,
// and its log files hold all of it. When it cannot be kept, the
// default tail's cut says to run the command again with a larger one.
// The pid is the kept run's, 0 when none was kept. A model keeps
// Mastra's notices: it is given no hints.
func (w *Workspace) keptHints(ctx context.Context, req ExecRequest, cwd string, start time.Time, run *procstate.RunResult, cuts [2]streamCut, askedTail bool) ([2]cutHints, int) {
	var hints [2]cutHints
	tailCut := [2]bool{!askedTail && cuts[0].tailCut(), !askedTail && cuts[1].tailCut()}
	limitCut := [2]bool{cuts[0].overLimit(), cuts[1].overLimit()}
	if !tailCut[0] && !tailCut[1] && !limitCut[0] && !limitCut[1] {
		return hints, 0
	}
	dir, ok := w.keepRun(ctx, req, cwd, start, run)
	if !ok {
		for i := range hints {
			if tailCut[i] {
				hints[i].tail = cuts[i].againHint()
			}
		}
		return hints, 0
	}
	for i := range hints {
		switch {
		case tailCut[i]:
			hints[i].tail = keptHint(dir, i, run.PID, servedRemotely(ctx))
		case limitCut[i]:
			hints[i].limit = keptHint(dir, i, run.PID, servedRemotely(ctx))
		}
	}
	return hints, run.PID
}

// againHint says how to see more of a stream the default tail cut by
// running the command again: --tail 0 only when the whole output is within
// the token limit.
func (c streamCut) againHint() string {
	if tokens.Sandwich(c.s, c.limit) != c.s {
		return "run it again with a larger --tail (all of it is over the output token limit)"
	}
	return "run it again with a larger --tail, or --tail 0 for all"
}

// keptHint says where a kept run's stream is: its log file, and the
// ps-output that searches it. A ws served remotely names no file: it is
// on the other machine.
func keptHint(dir string, stream, pid int, remote bool) string {
	if remote {
		return fmt.Sprintf("all of it is kept: ws ps-output %d --filter RE searches it, --tail 0 shows it", pid)
	}
	return fmt.Sprintf("all of it is kept in %s (ws ps-output %d --filter RE searches it)",
		wording.ShellWord(filepath.Join(dir, procstate.LogNames[stream])), pid)
}

// keepRun files a foreground run as a record of this workspace
// (procstate.KeepRun) and returns its directory; false when it could not
// be (a full or read-only state directory, ws destroy under way): the
// command has run, and only the hint is less good.
func (w *Workspace) keepRun(ctx context.Context, req ExecRequest, cwd string, start time.Time, run *procstate.RunResult) (string, bool) {
	store := w.procStore()
	held, err := store.LockStart(ctx, time.Duration(w.cfg.Tools.WriteLockTimeoutMs)*time.Millisecond)
	if err != nil {
		return "", false
	}
	defer held.Release()
	rec := &procstate.Record{PID: run.PID, Command: statefile.String(req.Command), Cwd: statefile.String(cwd),
		Root: statefile.String(w.fs.RealBase()), Thread: statefile.String(w.thread), StartedAt: start.UTC()}
	x := &procstate.Exit{ExitCode: run.ExitCode, Signal: run.Signal, TimedOut: run.TimedOut, EndedAt: w.now().UTC()}
	if err := store.KeepRun(rec, x, [2][]byte{run.Stdout, run.Stderr}, run.Dropped); err != nil {
		return "", false
	}
	return store.Dir(rec.ID), true
}

// tailText is a stream's text (streamCut.text) from a log of which only
// the last tail lines were read (procstate.ReadLogTail).
func tailText(t *procstate.LogTail, dropped int64, tail, limit int, h cutHints) string {
	s := tokens.Redraw(jsString(t.Data))
	shown := s
	if t.Cut() {
		shown = tokens.TailNotice(tail, t.Lines) + s
	}
	return tailCutStream(s, shown, limit).text(dropped, h)
}

// tailHint says how to see more of a stream whose head a tail cut off.
// With sinceLast the lines cut off count as seen too, so a larger tail
// alone would show nothing: the hint says to leave sinceLast out.
func tailHint(d Dialect, sinceLast bool) string {
	if sinceLast {
		return "those before count as seen: " + d.setting("tail", "tail", 0) + " without " + d.param("sinceLast", "since-last") + " shows all"
	}
	return "pass a larger " + d.param("tail", "tail") + ", or " + d.setting("tail", "tail", 0) + " for all"
}

// streamParts are Mastra's parts for a stdout/stderr pair.
func streamParts(out, errText string) []string {
	switch {
	case out != "" && errText != "":
		return []string{"stdout:", out, "", "stderr:", errText}
	case out != "":
		return []string{out}
	case errText != "":
		return []string{"stderr:", errText}
	}
	return nil
}

// execText assembles execute_command's textOut: textOut{the streams}, then, for a
// failed command, `Exit code: N` after exactly one blank line.
func execText(out, errText string, code int) string {
	parts := streamParts(out, errText)
	if code == 0 {
		if len(parts) == 0 {
			return "(no output)"
		}
		return strings.Join(parts, "\n")
	}
	exit := "Exit code: " + strconv.Itoa(code)
	if len(parts) == 0 {
		return exit
	}
	text := strings.Join(parts, "\n")
	switch {
	case strings.HasSuffix(text, "\n\n"):
	case strings.HasSuffix(text, "\n"):
		text += "\n"
	default:
		text += "\n\n"
	}
	return text + exit
}
