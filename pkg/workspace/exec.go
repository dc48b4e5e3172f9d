package workspace

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
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
	// A shell user whose output the default tail cut is told how to see
	// it all (a model keeps Mastra's notice); one who asked for a tail,
	// with --tail or a trailing | tail -N, got what was asked for.
	hint := ""
	if dialectOf(ctx) == CLIFlags && req.Tail == nil {
		hint = "run it again with a larger --tail, or --tail 0 for all"
	}
	if c, n, ok := stripTailPipe(command); ok {
		command, tail, hint = c, n, ""
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
	out := streamText(run.Stdout, run.Dropped[0], tail, limit, hint)
	errText := streamText(stderr, run.Dropped[1], tail, limit, hint)
	res.text = tokens.StripANSI(execText(out, errText, run.ExitCode))
	return res, nil
}

// streamText prepares one captured stream for the model: each line as a
// terminal leaves it (a progress bar redrawn with carriage returns shows
// its last drawing, tokens.Redraw), the newest lines (tail), then the
// token sandwich. hint, when not empty, is added to the
// tail notice: how to see more, for tools that can be called again with
// another tail (see tailHint).
func streamText(b []byte, dropped int64, tail, limit int, hint string) string {
	s := tokens.Redraw(jsString(b))
	return limitText(s, tokens.TailLines(s, tail), dropped, limit, hint)
}

// tailText is streamText for a stream of which only the last tail lines
// were read (procstate.ReadLogTail): the same text, from what was read.
func tailText(t *procstate.LogTail, dropped int64, tail, limit int, hint string) string {
	s := tokens.Redraw(jsString(t.Data))
	shown := s
	if t.Cut() {
		shown = tokens.TailNotice(tail, t.Lines) + s
	}
	return limitText(s, shown, dropped, limit, hint)
}

// limitText finishes a stream's text: t is s cut to its tail; the hint
// goes into the tail notice, then the token limit and the notice of
// dropped output apply.
func limitText(s, t string, dropped int64, limit int, hint string) string {
	if hint != "" && t != s {
		t = strings.Replace(t, " lines]\n", " lines; "+hint+"]\n", 1)
	}
	t = tokens.Sandwich(t, limit)
	if dropped > 0 && t != "" {
		t = fmt.Sprintf("[%d bytes of earlier output were dropped (over the per-stream cap)]\n", dropped) + t
	}
	return t
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
