package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/runner"
)

// helperTimeout bounds one config command (a hook, an upload filter)
// when the config does not say: 30 s.
const helperTimeout = 30 * time.Second

// helperTimeoutOf is a config command's timeout: the configured seconds
// (0: no limit), else helperTimeout.
func helperTimeoutOf(secs *float64) time.Duration {
	if secs == nil {
		return helperTimeout
	}
	return seconds(*secs)
}

// hookResult is the answer of a before hook that stopped the call.
type hookResult struct {
	Output any `json:"output"`
	textOut
}

// NeedsApproval reports whether a tool requires approval before it runs:
// its own requireApproval, else the global one (never for a skill tool,
// which Mastra's Agent adds without approval).
func (w *Workspace) NeedsApproval(id string) bool {
	if s, ok := Spec(id); ok && s.AgentTool {
		return false
	}
	if t := w.cfg.Tool(id); t.RequireApproval != nil {
		return *t.RequireApproval
	}
	return w.cfg.Tools.RequireApproval
}

// invoke runs one validated call: approval, the before hook (which may
// answer instead of the tool), the tool, then the after hook, which sees
// the output or the error. This is Mastra's wrapWithToolHooks, with the
// hooks as commands that read JSON on stdin. The hooks wrap the workspace
// tools only, so not the skill tools.
func (w *Workspace) invoke(ctx context.Context, spec *ToolSpec, name string, args []byte, req any) (Result, error) {
	w.touch()
	dry := isDryRun(req)
	// A dry run changes nothing, so there is nothing to approve: it shows
	// what the call would do, which is what the person asked would want
	// to see before approving the real one.
	if !dry && w.NeedsApproval(spec.ID) {
		ok, err := w.approve(ctx, name, string(args))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errs.NotApproved(name)
		}
	}
	hookIn := map[string]any{"toolName": name, "workspaceToolName": spec.ID, "input": json.RawMessage(args)}
	if dry {
		hookIn["dryRun"] = true // the call changes nothing
	}
	if hook := w.cfg.Tools.BeforeToolCall; len(hook) > 0 && !spec.AgentTool {
		out, err := w.runHook(ctx, "beforeToolCall", hook, hookIn)
		if err != nil {
			return nil, err
		}
		stop, output, err := hookAnswer(out)
		if err != nil && len(out) >= runner.DefaultMaxOutput {
			// Not bad JSON: ws kept only the start of a longer answer.
			return nil, errs.HookBadJSON(fmt.Errorf("its answer is longer than the %d bytes ws keeps of a hook's output (make it shorter)", runner.DefaultMaxOutput))
		}
		if err != nil {
			return nil, err
		}
		if stop {
			return skippedResult(output), nil
		}
	}
	res, err := w.runLimited(ctx, spec, name, req)
	if spec.ID != Delete {
		// Not for delete: a name offered there is one step from removing
		// a file nobody asked to remove.
		err = w.withNearest(err)
	}
	if hook := w.cfg.Tools.AfterToolCall; len(hook) > 0 && !spec.AgentTool {
		if res != nil {
			hookIn["output"] = res.Text()
		}
		if err != nil {
			hookIn["error"] = map[string]any{"code": errs.CodeOf(err), "message": err.Error()}
		}
		// The call has happened: the after hook runs even when the call
		// was cancelled (an audit log must see it), and its failure is a
		// warning, not the call's result, which stands. A signal to ws
		// still stops it.
		if _, herr := w.runHook(context.WithoutCancel(ctx), "afterToolCall", hook, hookIn); herr != nil {
			var sig *runner.SignalError
			if errors.As(herr, &sig) {
				return nil, herr
			}
			w.warn(herr.Error())
		}
	}
	return res, err
}

// dryRunner is a request that can ask for a dry run (ws write --dry-run
// and the like: the change is shown, none made); the flag fills it, JSON
// never does.
type dryRunner interface{ dryRun() bool }

// isDryRun reports whether req, a tool's request, asks for a dry run.
func isDryRun(req any) bool {
	d, ok := req.(dryRunner)
	return ok && d.dryRun()
}

// hookAnswer reads what a before hook printed: nothing (the call
// proceeds), or an object whose proceed:false stops the call and whose
// output answers instead of the tool.
func hookAnswer(out []byte) (stop bool, output json.RawMessage, err error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return false, nil, nil
	}
	var answer map[string]json.RawMessage
	if err := json.Unmarshal(out, &answer); err != nil {
		if !json.Valid(out) {
			return false, nil, errs.HookBadJSON(fmt.Errorf(`%q is not JSON: print nothing, or an object such as {"proceed":false,"output":"…"}`,
				wording.Excerpt(string(bytes.TrimSpace(out)), 60)))
		}
		return false, nil, errs.HookBadJSON(fmt.Errorf(`expected an object such as {"proceed":false,"output":"…"}, got %s`, jsonKind(out)))
	}
	switch p := string(bytes.TrimSpace(answer["proceed"])); p {
	case "", "null", "true":
	case "false":
		stop = true
	default:
		return false, nil, errs.HookBadJSON(fmt.Errorf("proceed: expected true or false, got %s", jsonKind(answer["proceed"])))
	}
	return stop, answer["output"], nil
}

// jsonKind names the kind of a JSON value, for a message.
func jsonKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func skippedResult(raw json.RawMessage) *hookResult {
	var v any
	_ = json.Unmarshal(raw, &v)
	r := &hookResult{Output: v}
	switch x := v.(type) {
	case nil:
	case string:
		r.text = x
	default:
		b, _ := json.Marshal(x)
		r.text = string(b)
	}
	return r
}

// runHook runs a hook command with the call as JSON on stdin and returns
// what it printed, within tools.hooks.timeout. A failure names the hook.
func (w *Workspace) runHook(ctx context.Context, name string, argv []string, in any) ([]byte, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, errs.Wrap(err)
	}
	return w.runHelper(ctx, "hook "+name, argv, data, helperTimeoutOf(w.cfg.Tools.HookTimeout))
}

// runHelper runs a config command (a hook, an upload filter) in the
// workspace root with the host environment and stdin, within timeout, and
// returns what it printed on stdout. A failure names the command as what.
// A background child the command leaves behind is not waited for.
func (w *Workspace) runHelper(ctx context.Context, what string, argv []string, stdin []byte, timeout time.Duration) ([]byte, error) {
	res, err := runner.Run(ctx, runner.Cmd{Argv: argv, Dir: w.base, Env: w.hostEnv, Stdin: stdin, Timeout: timeout})
	if err != nil {
		return nil, errs.CommandError(what, argv, runner.StartError(argv[0], "the workspace root", err), stderrLine(res))
	}
	return res.Stdout, nil
}

// stderrLine is the first line a command printed on stderr, or "".
func stderrLine(res *runner.Result) string {
	if res == nil {
		return ""
	}
	return wording.Excerpt(firstLine(strings.TrimSpace(string(res.Stderr))), maxQuoted)
}

// maxQuoted bounds what an error message quotes of a command's stderr.
const maxQuoted = 300

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Approver decides whether a call of a tool that requires approval may
// run. summary is the tool and its arguments, shortened for a prompt.
type Approver func(tool, summary string) (bool, error)

type approverKey struct{}

// WithApprover returns a context whose calls are approved by a: the way
// a transport asks its own user (ws mcp asks the client). The
// workspace's own approver (Options.Approve), when there is one, comes
// first.
func WithApprover(ctx context.Context, a Approver) context.Context {
	return context.WithValue(ctx, approverKey{}, a)
}

// approve asks the approver set up by the caller, else the context's;
// without one, the call is refused with a message that says how to
// approve it.
func (w *Workspace) approve(ctx context.Context, name, args string) (bool, error) {
	ask := w.approver
	if ask == nil {
		ask, _ = ctx.Value(approverKey{}).(Approver)
	}
	if ask == nil {
		return false, errs.NeedsApproval(name)
	}
	return ask(name, approvalSummary(name, []byte(args)))
}

// Bounds of an approval prompt: a string argument longer than
// maxSummaryValue bytes shows its start and its length, and the whole
// summary is at most maxSummary bytes.
const (
	maxSummaryValue = 80
	maxSummary      = 600
)

// approvalSummary is the tool and its arguments as an approval question
// shows them: every argument, in order, a long string shortened to its
// start and its size, so that a long content never pushes the path out of
// the question (the prompt cut the arguments' JSON at 200 bytes, where a
// write or an edit showed its content and never said which file). Control
// and bidirectional-format characters are escaped: the person asked sees
// what the call holds, not what it makes the terminal do.
func approvalSummary(name string, args []byte) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var fields []string
	t, err := dec.Token()
	for err == nil && t == json.Delim('{') && dec.More() {
		var k json.Token
		if k, err = dec.Token(); err != nil {
			break
		}
		var v json.RawMessage
		if err = dec.Decode(&v); err != nil {
			break
		}
		key, _ := k.(string)
		fields = append(fields, jsonenc.String(key)+":"+summaryValue(v))
	}
	text := string(args)
	if err == nil && t == json.Delim('{') {
		text = "{" + strings.Join(fields, ",") + "}"
	}
	return wording.Excerpt(name+" "+escapeInvisible(text), maxSummary)
}

// summaryValue is one argument of an approval summary.
func summaryValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return wording.Excerpt(string(v), maxSummaryValue) // a number, a boolean, an array…
	}
	if len(s) <= maxSummaryValue {
		return jsonenc.String(s)
	}
	start, _, _ := wording.Cut(s, 0, maxSummaryValue-20)
	q := jsonenc.String(start)
	return q[:len(q)-1] + "…\" (" + strconv.Itoa(len(s)) + " bytes)"
}

// escapeInvisible writes the characters JSON leaves as they are but a
// terminal acts on or hides (C1 controls; format characters such as
// bidirectional overrides and zero widths) as \uXXXX.
func escapeInvisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// OperationTimeoutOp is the Op of the error of a call that ran past
// tools.operationTimeout.
const OperationTimeoutOp = "operationTimeout"

// timeoutGrace is how long a call past its operation timeout is given to
// stop by itself (its context is cancelled) before ws stops waiting.
const timeoutGrace = 200 * time.Millisecond

// runLimited runs the tool, bounded by tools.operationTimeout when it is
// set. At the deadline the call's context is cancelled (commands are
// killed, walks, waits and streamed writes stop) and its commit gate
// closes: no change to files that the tool has not begun is made after
// it. A tool that made such a change (it went through commit before the
// deadline) is waited for and reports its own outcome, success or
// failure; one that changed nothing and ends after the deadline fails
// with TIMEOUT (a killed command's result, a late read: what it did is
// dropped, as Mastra's timeout drops it). A tool that changed nothing and
// has not returned timeoutGrace after the deadline is no longer waited
// for: the closed gate keeps it from changing anything later.
func (w *Workspace) runLimited(ctx context.Context, spec *ToolSpec, name string, req any) (Result, error) {
	ms := w.cfg.Tools.OperationTimeoutMs
	if ms <= 0 {
		return spec.run(ctx, w, req)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, time.Duration(ms)*time.Millisecond, errOperationTimeout)
	defer cancel()
	gate := &commitGate{}
	tctx = context.WithValue(tctx, commitGateKey{}, gate)
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := spec.run(tctx, w, req)
		done <- outcome{res, err}
	}()
	timedOut := func() (Result, error) {
		e := errs.OperationTimeout(name, ms)
		e.Op = OperationTimeoutOp
		return nil, e
	}
	var o outcome
	select {
	case o = <-done:
	case <-tctx.Done():
		if ctx.Err() != nil {
			o := <-done // the caller's own cancellation: the tool answers it
			return o.res, o.err
		}
		changed := gate.close()
		select {
		case o = <-done:
		case <-time.After(timeoutGrace):
			if !changed {
				// ws may exit now, the tool still running: the
				// temporary file of a write waiting for its content
				// must not stay behind.
				gate.abandon()
				return timedOut()
			}
			o = <-done
		}
	}
	if ctx.Err() == nil && errors.Is(context.Cause(tctx), errOperationTimeout) && !gate.close() {
		return timedOut()
	}
	return o.res, o.err
}

// commitGate orders the changes of a call bounded by an operation timeout
// against its deadline: a change runs only while the gate is open, and
// closing it waits for a change under way.
type commitGate struct {
	mu      sync.Mutex
	closed  bool
	changes int
	// temps are the removers of the temporary files of writes under way
	// (see fsroot.WriteOptions.Track), by a number of their own; nil once
	// the call was given up (abandon).
	temps     map[int]func()
	next      int
	abandoned bool
}

type commitGateKey struct{}

// close shuts the gate (no change starts after it) and reports whether a
// change was made before.
func (g *commitGate) close() (changed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return g.changes > 0
}

// track keeps remove, the remover of a write's temporary file, until
// untrack; it fails once the call was given up.
func (g *commitGate) track(remove func()) (untrack func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.abandoned {
		return nil, context.DeadlineExceeded
	}
	if g.temps == nil {
		g.temps = map[int]func(){}
	}
	n := g.next
	g.next++
	g.temps[n] = remove
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.temps, n)
	}, nil
}

// abandon removes the temporary files of the writes under way, for a call
// given up at its deadline, and lets no write make another.
func (g *commitGate) abandon() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.abandoned = true
	for _, remove := range g.temps {
		remove()
	}
	g.temps = nil
}

// commit runs step, a change to the workspace that must be made whole or
// not at all, unless the call has been cancelled or has passed its
// operation timeout: then it changes nothing and returns the context's
// error.
func commit(ctx context.Context, step func() error) error {
	g, _ := ctx.Value(commitGateKey{}).(*commitGate)
	if g == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		return step()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.closed {
		return context.DeadlineExceeded
	}
	g.changes++ // a step that fails may still have changed something
	return step()
}

// commitWith is commit bound to ctx, for fsroot.WriteOptions.Commit.
func commitWith(ctx context.Context) func(step func() error) error {
	return func(step func() error) error { return commit(ctx, step) }
}

// trackWith is the gate of ctx's call keeping a write's temporary file,
// for fsroot.WriteOptions.Track; nil when the call has no operation
// timeout.
func trackWith(ctx context.Context) func(remove func()) (func(), error) {
	if g, _ := ctx.Value(commitGateKey{}).(*commitGate); g != nil {
		return g.track
	}
	return nil
}

var errOperationTimeout = errors.New("operation timeout")
