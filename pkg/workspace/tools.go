package workspace

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/schema"
)

// Tool ids, as Mastra names them. Each is used in its table entry below
// and where a tool reads its own settings from the config.
const (
	ReadFile         = "mastra_workspace_read_file"
	WriteFile        = "mastra_workspace_write_file"
	EditFile         = "mastra_workspace_edit_file"
	ListFiles        = "mastra_workspace_list_files"
	Delete           = "mastra_workspace_delete"
	FileStat         = "mastra_workspace_file_stat"
	Mkdir            = "mastra_workspace_mkdir"
	Grep             = "mastra_workspace_grep"
	Search           = "mastra_workspace_search"
	Index            = "mastra_workspace_index"
	ExecuteCommand   = "mastra_workspace_execute_command"
	GetProcessOutput = "mastra_workspace_get_process_output"
	KillProcess      = "mastra_workspace_kill_process"
	Skill            = "skill"
	SkillSearch      = "skill_search"
	SkillRead        = "skill_read"
	// ws's own tools.
	MultiEdit    = "multi_edit"
	ApplyPatch   = "apply_patch"
	Undo         = "undo"
	Glob         = "glob"
	SendInput    = "send_input"
	MoveFile     = "move_file"
	NotebookRead = "notebook_read"
	NotebookEdit = "notebook_edit"
)

// Result is what every tool returns: the text the model is shown, plus the
// exported fields that `--json` puts under "data".
type Result interface {
	Text() string
}

// textOut is the text part of a result, embedded in each result struct.
type textOut struct{ text string }

// Text is the tool's output as the model sees it.
func (t *textOut) Text() string { return t.text }

// Feature is something a tool needs the workspace to have.
type Feature int

// Features a tool may need.
const (
	NeedSandbox   Feature = 1 << iota // a sandbox (the config did not switch it off)
	NeedProcesses                     // a sandbox that can start background processes
	NeedSearch                        // search configured (bm25 or an embedder)
	NeedSkills                        // skills configured
)

// ToolSpec is one entry of the tool table: everything ws knows of a tool.
// The config's tool keys, what a workspace offers (and why it does not),
// read-only enforcement, `ws tools`, `ws call`, `ws mcp` and the
// subcommands are all derived from these entries.
type ToolSpec struct {
	ID          string // Mastra's id: the config key and the default exposed name
	Command     string // the subcommand that runs it: "read", "skill search"
	Description string // what models are told (our words)
	// WSDescription replaces Description when tools.wsTools is on: it may
	// name the tool's ws-only parameters, which models see only then.
	WSDescription string
	Writes        bool    // changes files: not offered, and refused, on a read-only filesystem
	Op            string  // for write tools: the operation Mastra's read-only message names
	Needs         Feature // what the workspace must have
	// WSOnly marks a tool Mastra does not have. Its subcommand always
	// exists; models are offered it only when the config's tools.wsTools
	// is on, so the default tool list stays Mastra's.
	WSOnly bool
	// Observes marks a sandbox tool that only looks (get_process_output):
	// it runs nothing and changes nothing, so it counts as read-only.
	Observes bool
	// MediaOptions: the tool takes read_file's mediaTypes and
	// maxMediaBytes settings.
	MediaOptions bool
	// AgentTool marks a tool Mastra's Agent adds beside the workspace
	// tools (the skill tools): the tools config does not reach it — it is
	// not switched off, renamed, made to need approval or hooked.
	AgentTool bool
	// Cancellable marks a tool that watches its context and stops early
	// when it ends (a shell command, a wait, a long walk or index, a
	// change of several files taken back). Its subcommand cancels it on
	// the first SIGINT or SIGTERM; the others keep the default signal
	// handling, which costs nothing at start-up.
	Cancellable bool

	params func() schema.Params // read from the request struct on first use
	// offer, when set, narrows the parameters models are offered to
	// what this workspace can do (the call still validates them all).
	offer func(w *Workspace, p schema.Params) schema.Params
	// tell, when set, fits the description models are told to this
	// workspace (a default the config changed).
	tell   func(w *Workspace, description string) string
	decode func(args []byte) (any, error)
	run    func(ctx context.Context, w *Workspace, req any) (Result, error)
}

// tool completes a table entry with its request type and run function.
func tool[Req any, Res Result](s ToolSpec, run func(*Workspace, context.Context, Req) (Res, error)) *ToolSpec {
	s.params = sync.OnceValue(schema.For[Req])
	s.decode = func(args []byte) (any, error) {
		var req Req
		if err := json.Unmarshal(args, &req); err != nil {
			return nil, errs.BadArgs(s.ID, err)
		}
		return req, nil
	}
	s.run = func(ctx context.Context, w *Workspace, req any) (Result, error) {
		r, ok := req.(Req)
		if !ok {
			return nil, errs.Internalf("%s: request of type %T", s.ID, req)
		}
		res, err := run(w, ctx, r)
		if err != nil {
			return nil, err // not a typed nil in a non-nil Result
		}
		return res, nil
	}
	return &s
}

// Tools is the tool table: every tool ws implements, in Mastra's
// registration order (then ws's own). It is built on first use, and each
// entry reads its request struct only when its parameters are needed, so
// a command pays for the one tool it runs.
var Tools = sync.OnceValue(func() []*ToolSpec {
	return []*ToolSpec{
		tool(ToolSpec{ID: ReadFile, Command: "read", MediaOptions: true, tell: (*Workspace).tellReadMedia,
			Description: "Read a file from the workspace. Text comes back as numbered lines (`N→text`); use offset and limit to page through long files. Images and PDFs come back as media; other binary files need an explicit encoding."},
			(*Workspace).Read),
		tool(ToolSpec{ID: WriteFile, Command: "write", Writes: true, Op: "write_file",
			Description: "Create or replace a file with the given content, creating missing directories. The write is atomic: readers see the old file or the new one, never a mix."},
			(*Workspace).Write),
		tool(ToolSpec{ID: EditFile, Command: "edit", Writes: true, Op: "edit_file",
			Description: "Replace one exact piece of text in a file with new text. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true. Read the file first to copy the text."},
			(*Workspace).Edit),
		tool(ToolSpec{ID: ListFiles, Command: "ls",
			Description: "List a directory as a tree (directories first, tab-indented), with a count of directories and files. Hidden names and what .gitignore and .ignore files exclude are left out unless asked; use pattern, extension, exclude and maxDepth to focus."},
			(*Workspace).List),
		tool(ToolSpec{ID: Delete, Command: "delete", Writes: true, Op: "delete",
			Description: "Delete a file or directory. A non-empty directory needs recursive=true. A symlink is removed, not its target."},
			(*Workspace).Delete),
		tool(ToolSpec{ID: FileStat, Command: "stat",
			Description: "Show whether a path is a file or a directory, its size and when it was last modified."},
			(*Workspace).Stat),
		tool(ToolSpec{ID: Mkdir, Command: "mkdir", Writes: true, Op: "mkdir",
			Description: "Create a directory, with its missing parents unless recursive is false. An existing directory is not an error."},
			(*Workspace).Mkdir),
		tool(ToolSpec{ID: Grep, Command: "grep", Cancellable: true,
			Description:   "Search file contents for a regular expression. Prints a summary, then path:line:column: text for the first match of each matching line, with optional context lines. Respects .gitignore and .ignore files; binary files are skipped.",
			WSDescription: "Search file contents for a regular expression. Prints a summary, then path:line:column: text for the first match of each matching line, with optional context lines. Respects .gitignore and .ignore files; binary files are skipped. multiline=true lets a match span lines."},
			(*Workspace).Grep),
		tool(ToolSpec{ID: Search, Command: "search", Cancellable: true, Needs: NeedSearch, offer: (*Workspace).offerSearchModes,
			Description: "Find documents in the workspace's search index, best first: by keywords (BM25), by meaning (vector, when an embedder is configured) or both (hybrid). Each result shows the document id, the lines where the words occur, and its text."},
			(*Workspace).Search),
		tool(ToolSpec{ID: Index, Command: "index", Cancellable: true, Writes: true, Op: "index", Needs: NeedSearch,
			Description: "Add text to the search index under a name, or replace what that name held, so that search can find it."},
			(*Workspace).Index),
		tool(ToolSpec{ID: ExecuteCommand, Command: "exec", Cancellable: true, Needs: NeedSandbox, offer: (*Workspace).offerExecTimeouts, tell: (*Workspace).tellExecTimeouts,
			Description: "Run a shell command (/bin/sh -c) in the workspace and return its output and exit code. Each stream shows its last 200 lines by default (see tail). Commands stop after the timeout (300 s by default). Set background=true for servers and other long jobs: they run until they exit or are killed (no timeout unless you give one), and you get a PID to pass to get_process_output and kill_process."},
			(*Workspace).Exec),
		tool(ToolSpec{ID: GetProcessOutput, Command: "ps-output", Cancellable: true, Needs: NeedSandbox | NeedProcesses, Observes: true,
			Description:   "Show the output of a background process started with execute_command, and its exit code once it has ended. wait=true waits for it to end (waitTimeout bounds the wait).",
			WSDescription: "Show the output of a background process started with execute_command, and its exit code once it has ended. wait=true waits for it to end (waitTimeout bounds the wait); sinceLast=true shows only what you have not seen yet; filter keeps the matching lines."},
			(*Workspace).ProcessOutput),
		tool(ToolSpec{ID: KillProcess, Command: "kill", Cancellable: true, Needs: NeedSandbox | NeedProcesses,
			Description: "Stop a background process started with execute_command (and everything it started), and show its last output."},
			(*Workspace).Kill),
		tool(ToolSpec{ID: Skill, AgentTool: true, Command: "skill", Cancellable: true, Needs: NeedSkills,
			Description: "Load a skill's full instructions by name (or path), with the lists of its reference files, scripts and assets. Activate a skill as soon as it is relevant; skills are instructions, not tools."},
			(*Workspace).Skill),
		tool(ToolSpec{ID: SkillSearch, AgentTool: true, Command: "skill search", Cancellable: true, Needs: NeedSkills,
			Description: "Search the instructions and reference files of the available skills for a topic."},
			(*Workspace).SkillSearch),
		tool(ToolSpec{ID: SkillRead, AgentTool: true, Command: "skill read", Cancellable: true, Needs: NeedSkills,
			Description: "Read a file of a skill (references/, scripts/ or assets/), by its path below the skill's directory, optionally a range of lines."},
			(*Workspace).SkillRead),
		tool(ToolSpec{ID: MultiEdit, Command: "edit --edits", Writes: true, Op: "multi_edit", WSOnly: true,
			Description: "Make several edits of one file at once, in order, each as edit_file makes it (exact text first, then tolerant of formatting slips, never ambiguous). Either every edit applies and the file is written once, or none does."},
			(*Workspace).MultiEdit),
		tool(ToolSpec{ID: ApplyPatch, Command: "patch", Cancellable: true, Writes: true, Op: "apply_patch", WSOnly: true,
			Description: "Apply a patch that adds, updates, moves or deletes files: Codex's apply_patch format or a unified diff. Context lines locate each change (trailing whitespace and typographic punctuation are forgiven; a context that fits two places is refused). All files change or none."},
			(*Workspace).ApplyPatch),
		tool(ToolSpec{ID: Undo, Command: "undo", Cancellable: true, Writes: true, Op: "undo", WSOnly: true,
			Description: "Take back the last change ws made to a file (write, edit, delete, move or patch) or a directory (delete, move: a moved directory is renamed back), or the last change in the workspace; only this thread's changes, when a thread is set. Refused when the file changed since, unless force is set. An undo can itself be undone."},
			(*Workspace).Undo),
		tool(ToolSpec{ID: SendInput, Command: "send", Cancellable: true, Needs: NeedSandbox | NeedProcesses, WSOnly: true,
			Description: "Write text to the stdin of a background process started with execute_command (background=true, and stdinPipe=true or tty=true): answer a prompt, drive a REPL. The text is sent as given, so end it with a newline to submit a line; eof=true closes stdin afterwards (on a tty: sends ^D, the terminal's end of file). Read the reply with get_process_output (sinceLast=true shows only what is new)."},
			(*Workspace).SendInput),
		tool(ToolSpec{ID: Glob, Command: "glob", WSOnly: true,
			Description: "Find files by name pattern ('**/*.go' at any depth, 'src/**/*.test.ts', '*.md' at the top level), newest first, at most maxResults (default 100). Hidden names and what .gitignore and .ignore files exclude are left out unless asked; directories are not listed."},
			(*Workspace).Glob),
		tool(ToolSpec{ID: MoveFile, Command: "move", Writes: true, Op: "move", WSOnly: true,
			Description: "Move or rename a file, a symbolic link or a directory (with everything in it) within the workspace, in one step, never a copy: destination is its new path (missing directories are made). A file already there is replaced only with overwrite=true; a directory replaces only an empty directory (overwrite=true), never merges into or deletes one that holds anything. undo moves it back."},
			(*Workspace).Move),
		tool(ToolSpec{ID: NotebookRead, Command: "notebook", WSOnly: true, MediaOptions: true,
			Description: "Show a Jupyter notebook (.ipynb) as its cells: each between <cell index=… id=… type=…> and </cell>, its source as written, then its outputs (text as text, images by type and size; an MCP client also gets the images themselves). Use it instead of read_file on notebooks: the cell ids it shows are what notebook_edit takes."},
			(*Workspace).NotebookRead),
		tool(ToolSpec{ID: NotebookEdit, Command: "notebook-edit", Writes: true, Op: "notebook_edit", WSOnly: true,
			Description: "Change one cell of a Jupyter notebook: replace its source (and optionally its type), insert a new cell after it, or delete it. Cells are named by id or index, as notebook_read shows them. Only that cell's part of the file changes; undo takes the change back."},
			(*Workspace).NotebookEdit),
	}
})

// Schema is the tool's parameters as a draft-07 JSON Schema: all of
// them with wsTools, else only Mastra's (see paramsFor).
func (s *ToolSpec) Schema(wsTools bool) json.Marshaler { return s.paramsFor(wsTools).JSON() }

// paramsFor is the parameter list models are offered: with wsTools every
// parameter, else without the ws-only ones (tagged ws:"only"), so that
// the default schemas stay Mastra's and a call that names one is refused
// as an unknown key. The subcommands' flags take them all.
func (s *ToolSpec) paramsFor(wsTools bool) schema.Params {
	if wsTools {
		return s.params()
	}
	return s.params().Mastra()
}

// describe is what models are told of the tool (see WSDescription).
func (s *ToolSpec) describe(wsTools bool) string {
	if wsTools && s.WSDescription != "" {
		return s.WSDescription
	}
	return s.Description
}

// ReadOnly reports whether the tool leaves the workspace alone: it writes
// no file, runs no command and signals no process.
func (s *ToolSpec) ReadOnly() bool { return !s.Writes && (s.Needs&NeedSandbox == 0 || s.Observes) }

// Constraint is what the parameter name accepts beyond its type.
func (s *ToolSpec) Constraint(name string) schema.Constraint { return s.params().Constraint(name) }

// Params lists the tool's parameter names in declaration order.
func (s *ToolSpec) Params() []string { return s.params().Names() }

// Spec returns the table entry of a tool id.
func Spec(id string) (*ToolSpec, bool) {
	for _, s := range Tools() {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// ConfigKeys are the tool entries a config may have under "tools", from
// the table.
func ConfigKeys() []config.ToolKey {
	var keys []config.ToolKey
	for _, s := range Tools() {
		keys = append(keys, config.ToolKey{ID: s.ID, Media: s.MediaOptions, Fixed: s.AgentTool, WSOnly: s.WSOnly})
	}
	return keys
}

// Unavailable says why this workspace cannot run a tool, or nil when it
// can: the config switched it off; it writes and the filesystem is
// read-only (Mastra's message); or the workspace lacks what it needs.
func (w *Workspace) Unavailable(s *ToolSpec) error { return w.unavailable(JSONParams, s) }

// unavailable is Unavailable told in d's words: a subcommand's text says
// which config key would supply what is missing.
func (w *Workspace) unavailable(d Dialect, s *ToolSpec) error {
	switch {
	case !s.AgentTool && !w.cfg.ToolEnabled(s.ID):
		return errs.ToolNotOffered(s.ID, w.switchedOff(s.ID))
	case s.Writes && w.readOnly:
		return errs.ReadOnlyMode(s.Op)
	}
	return w.lacksIn(d, s.Needs)
}

// lacks says which of the features needs this workspace does not have.
func (w *Workspace) lacks(needs Feature) error { return w.lacksIn(JSONParams, needs) }

// lacksIn is lacks in d's words: Mastra's messages, and for a subcommand
// the config key that would supply the feature.
func (w *Workspace) lacksIn(d Dialect, needs Feature) error {
	cli := d == CLIFlags
	switch {
	case needs&NeedSandbox != 0 && w.cfg.Sandbox.Disabled:
		if cli {
			return errs.NoSandboxConfigured()
		}
		return errs.NoSandbox()
	case needs&NeedProcesses != 0 && len(w.superv) == 0:
		return errs.NoProcesses()
	case needs&NeedSearch != 0 && !w.cfg.BM25 && w.cfg.Embedder == nil:
		if cli {
			return errs.NoSearchConfigured()
		}
		return errs.NoSearch()
	case needs&NeedSkills != 0 && len(w.cfg.Skills) == 0:
		return errs.NoSkills()
	}
	return nil
}

// Offered is a tool as this workspace exposes it: under its configured
// name, if renamed.
type Offered struct {
	Name    string
	Spec    *ToolSpec
	wsTools bool // the config's tools.wsTools: ws's own parameters are offered too
	w       *Workspace
}

// Description is what models are told of the tool.
func (o Offered) Description() string {
	if o.Spec.tell != nil {
		return o.Spec.tell(o.w, o.Spec.describe(o.wsTools))
	}
	return o.Spec.describe(o.wsTools)
}

// Schema is the tool's parameters as models are offered them.
func (o Offered) Schema() json.Marshaler {
	if o.Spec.offer != nil {
		return o.Spec.offer(o.w, o.Spec.paramsFor(o.wsTools)).JSON()
	}
	return o.Spec.Schema(o.wsTools)
}

// Offered lists the tools this workspace offers to models, in table
// order: those it can run, and ws's own tools only when the config turns
// them on.
func (w *Workspace) Offered() []Offered {
	var out []Offered
	for _, s := range Tools() {
		if w.Unavailable(s) != nil || s.WSOnly && !w.cfg.Tools.WSTools {
			continue
		}
		out = append(out, Offered{Name: w.exposedName(s.ID), Spec: s, wsTools: w.cfg.Tools.WSTools, w: w})
	}
	return out
}

// Lookup finds an offered tool by its exposed name. A renamed tool is no
// longer found under its id.
func (w *Workspace) Lookup(name string) (*ToolSpec, error) {
	for _, o := range w.Offered() {
		if o.Name == name {
			return o.Spec, nil
		}
	}
	return nil, w.notOffered(name)
}

// notOffered says why no offered tool has this name: the config switched
// it off, the filesystem is read-only, it is one of ws's own tools and
// wsTools is off, the workspace lacks what it needs, or (only when it is
// offered under it) the config renamed it. A tool exposed under this name
// is explained before one whose id it is. A name ws has no tool for is
// not available, with the offered tool it most likely means.
func (w *Workspace) notOffered(name string) error {
	for _, byID := range []bool{false, true} {
		for _, s := range Tools() {
			exposed := w.exposedName(s.ID)
			if !byID && exposed != name || byID && s.ID != name {
				continue
			}
			var why string
			switch {
			case !s.AgentTool && !w.cfg.ToolEnabled(s.ID):
				why = w.switchedOff(s.ID)
			case s.Writes && w.readOnly:
				why = "the filesystem is read-only"
			case s.WSOnly && !w.cfg.Tools.WSTools:
				why = "one of ws's own tools: the config's tools.wsTools: true offers it"
			case w.lacks(s.Needs) != nil:
				why = w.lacks(s.Needs).Error()
			case exposed != name:
				// Offered, under another name: the one to call.
				why = "the config names it " + exposed
			default:
				continue
			}
			return errs.ToolNotOffered(name, why)
		}
	}
	if n := w.nearestTool(name); n != "" {
		return errs.ToolNotOffered(name, "did you mean "+n+"?")
	}
	return errs.ToolNotAvailable(name)
}

// switchedOff names the config key that switches a tool off.
func (w *Workspace) switchedOff(id string) string {
	if t := w.cfg.Tools.PerTool[id]; t.Enabled != nil {
		return "the config sets tools." + id + ".enabled: false"
	}
	return "the config sets tools.enabled: false"
}

// OfferedNames lists the exposed names, sorted, for messages.
func (w *Workspace) OfferedNames() []string {
	var names []string
	for _, o := range w.Offered() {
		names = append(names, o.Name)
	}
	sort.Strings(names)
	return names
}

// Call runs an offered tool with JSON arguments: the function-calling path.
// Arguments are validated as Mastra validates them (messages name the tool
// as it was called); the result is the same as the tool's subcommand gives.
func (w *Workspace) Call(ctx context.Context, name string, args []byte) (*ToolSpec, Result, error) {
	spec, err := w.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if err := schema.CheckArgs(name, args); err != nil {
		return spec, nil, err
	}
	clean, err := spec.paramsFor(w.cfg.Tools.WSTools).Validate(name, args)
	if err != nil {
		return spec, nil, err
	}
	req, err := spec.decode(clean)
	if err != nil {
		return spec, nil, err
	}
	res, err := w.invoke(ctx, spec, name, clean, req)
	return spec, res, err
}

// Run runs a tool by id with a request filled from flags: the subcommand
// path. It refuses what Unavailable names, then validates the request
// exactly as Call validates JSON (it is encoded for that only: the tool
// gets the request itself, so bytes that are not valid UTF-8 reach it
// unchanged), and goes through the same approval and hooks.
func (w *Workspace) Run(ctx context.Context, id string, req any) (Result, error) {
	spec, ok := Spec(id)
	if !ok {
		return nil, errs.ToolNotAvailable(id)
	}
	if err := w.unavailable(dialectOf(ctx), spec); err != nil {
		return nil, err
	}
	// Hooks and an approver are shown the arguments: streamed content
	// is read in full for them.
	if s, ok := req.(streamed); ok && w.showsArgs(spec.ID) {
		loaded, err := s.loaded()
		if err != nil {
			return nil, errs.Wrap(err)
		}
		req = loaded
	}
	args, err := json.Marshal(req)
	if err != nil {
		return nil, errs.Wrap(err)
	}
	name := w.exposedName(id)
	clean, err := spec.params().Validate(name, args)
	if err != nil {
		return nil, err
	}
	return w.invoke(ctx, spec, name, clean, req)
}

// streamed is a request whose content may come from a reader (ws write
// -, ws send -); loaded returns it with that content read in full.
type streamed interface{ loaded() (any, error) }

// showsArgs reports whether a call of the tool id shows its arguments to
// someone: an approver or a hook.
func (w *Workspace) showsArgs(id string) bool {
	return w.NeedsApproval(id) || len(w.cfg.Tools.BeforeToolCall) > 0 || len(w.cfg.Tools.AfterToolCall) > 0
}

// exposedName is the name a tool is offered under.
func (w *Workspace) exposedName(id string) string {
	if n := w.cfg.Tool(id).Name; n != "" {
		return n
	}
	return id
}
