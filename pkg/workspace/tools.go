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

// Result is what every tool returns: the text the model is shown, plus the
// exported fields that `--json` puts under "data".
type Result interface {
	Text() string
}

// ToolSpec describes one tool: its id, our description, its parameters
// (from the request struct) and how to run it.
type ToolSpec struct {
	ID          string
	Description string
	// Writes marks tools that change files; a read-only filesystem drops them.
	Writes bool
	params schema.Params
	decode func(args []byte) (any, error)
	run    func(ctx context.Context, w *Workspace, req any) (Result, error)
}

// Schema is the tool's parameters as a draft-07 JSON Schema.
func (s *ToolSpec) Schema() json.Marshaler { return s.params.JSON() }

// ReadOnly reports whether the tool leaves files alone (it may still run
// commands: the sandbox tools are not read-only).
func (s *ToolSpec) ReadOnly() bool {
	switch s.ID {
	case config.ExecuteCommand, config.GetProcessOutput, config.KillProcess, config.Index:
		return false
	}
	return !s.Writes
}

// Params lists the tool's parameter names in declaration order.
func (s *ToolSpec) Params() []string { return s.params.Names() }

func defineTool[Req any, Res Result](id, desc string, writes bool, run func(*Workspace, context.Context, Req) (Res, error)) *ToolSpec {
	return &ToolSpec{
		ID:          id,
		Description: desc,
		Writes:      writes,
		params:      schema.For[Req](),
		decode: func(args []byte) (any, error) {
			var req Req
			if err := json.Unmarshal(args, &req); err != nil {
				return nil, errs.BadArgs(id, err)
			}
			return req, nil
		},
		run: func(ctx context.Context, w *Workspace, req any) (Result, error) {
			r, ok := req.(Req)
			if !ok {
				return nil, errs.Internalf("%s: request of type %T", id, req)
			}
			res, err := run(w, ctx, r)
			if err != nil {
				return nil, err // not a typed nil in a non-nil Result
			}
			return res, nil
		},
	}
}

// allTools lists every tool ws implements, in Mastra's registration order.
// The list is built on first use: reading the request structs' fields costs
// start-up time that most commands (one tool each) need not pay for all.
var allTools = sync.OnceValue(func() []*ToolSpec {
	return []*ToolSpec{
		defineTool(config.ReadFile,
			"Read a file from the workspace. Text comes back as numbered lines (`N→text`); use offset and limit to page through long files. Images and PDFs come back as media; other binary files need an explicit encoding.",
			false, (*Workspace).Read),
		defineTool(config.WriteFile,
			"Create or replace a file with the given content, creating missing directories. The write is atomic: readers see the old file or the new one, never a mix.",
			true, (*Workspace).Write),
		defineTool(config.EditFile,
			"Replace one exact piece of text in a file with new text. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true. Read the file first to copy the text.",
			true, (*Workspace).Edit),
		defineTool(config.ListFiles,
			"List a directory as a tree (directories first, tab-indented), with a count of directories and files. Hidden names and .gitignored paths are left out unless asked; use pattern, extension, exclude and maxDepth to focus.",
			false, (*Workspace).List),
		defineTool(config.Delete,
			"Delete a file or directory. A non-empty directory needs recursive=true. A symlink is removed, not its target.",
			true, (*Workspace).Delete),
		defineTool(config.FileStat,
			"Show whether a path is a file or a directory, its size and when it was last modified.",
			false, (*Workspace).Stat),
		defineTool(config.Mkdir,
			"Create a directory, with its missing parents unless recursive is false. An existing directory is not an error.",
			true, (*Workspace).Mkdir),
		defineTool(config.Grep,
			"Search file contents for a regular expression. Prints a summary, then path:line:column: text for the first match of each matching line, with optional context lines. Respects .gitignore; binary files are skipped.",
			false, (*Workspace).Grep),
		defineTool(config.Search,
			"Find documents in the workspace's search index by keywords (BM25 ranking), best first: each result shows the document id, the lines where the words occur, and its text.",
			false, (*Workspace).Search),
		defineTool(config.Index,
			"Add text to the search index under a name, or replace what that name held, so that search can find it.",
			true, (*Workspace).Index),
		defineTool(config.ExecuteCommand,
			"Run a shell command (/bin/sh -c) in the workspace and return its output and exit code. Each stream shows its last 200 lines by default (see tail). Commands stop after the timeout. Set background=true for servers and other long jobs; you get a PID to pass to get_process_output and kill_process.",
			false, (*Workspace).Exec),
		defineTool(config.GetProcessOutput,
			"Show the output of a background process started with execute_command, and its exit code once it has ended. wait=true waits for it to end.",
			false, (*Workspace).ProcessOutput),
		defineTool(config.KillProcess,
			"Stop a background process started with execute_command (and everything it started), and show its last output.",
			false, (*Workspace).Kill),
		defineTool(config.Skill,
			"Load a skill's full instructions by name (or path), with the lists of its reference files, scripts and assets. Activate a skill as soon as it is relevant; skills are instructions, not tools.",
			false, (*Workspace).Skill),
		defineTool(config.SkillSearch,
			"Search the instructions and reference files of the available skills for a topic.",
			false, (*Workspace).SkillSearch),
		defineTool(config.SkillRead,
			"Read a file of a skill (references/, scripts/ or assets/), by its path below the skill's directory, optionally a range of lines.",
			false, (*Workspace).SkillRead),
	}
})

// Spec returns the tool with the given id.
func Spec(id string) (*ToolSpec, bool) {
	for _, s := range allTools() {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// Offered is a tool as this workspace exposes it: under its configured
// name, if renamed.
type Offered struct {
	Name string
	Spec *ToolSpec
}

// Offered lists the tools this workspace offers, in registration order:
// tools switched off in the config are left out, and so are the write tools
// on a read-only filesystem.
func (w *Workspace) Offered() []Offered {
	var out []Offered
	for _, s := range allTools() {
		if !w.cfg.ToolEnabled(s.ID) || (s.Writes && w.readOnly) || !w.hasFeature(s.ID) {
			continue
		}
		name := s.ID
		if n := w.cfg.Tool(s.ID).Name; n != "" {
			name = n
		}
		out = append(out, Offered{Name: name, Spec: s})
	}
	return out
}

// hasFeature reports whether the workspace has what a tool needs: the
// sandbox tools need a sandbox, the process tools a supervisor too.
func (w *Workspace) hasFeature(id string) bool {
	switch id {
	case config.ExecuteCommand:
		return !w.cfg.Sandbox.Disabled
	case config.GetProcessOutput, config.KillProcess:
		return !w.cfg.Sandbox.Disabled && len(w.superv) > 0
	case config.Search, config.Index, config.Skill, config.SkillSearch, config.SkillRead:
		return w.searchSkillAvailable(id) == nil
	}
	return true
}

// Lookup finds an offered tool by its exposed name. A renamed tool is no
// longer found under its id.
func (w *Workspace) Lookup(name string) (*ToolSpec, error) {
	for _, o := range w.Offered() {
		if o.Name == name {
			return o.Spec, nil
		}
	}
	return nil, errs.ToolNotAvailable(name)
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
	clean, err := spec.params.Validate(name, args)
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
// path. The request is validated exactly as Call validates JSON (it is
// encoded for that only: the tool gets the request itself, so bytes that
// are not valid UTF-8 reach it unchanged). A write tool on a read-only
// filesystem fails with Mastra's read-only message; a tool the config
// switched off is not available.
func (w *Workspace) Run(ctx context.Context, id string, req any) (Result, error) {
	spec, ok := Spec(id)
	if !ok || !w.cfg.ToolEnabled(id) {
		return nil, errs.ToolNotAvailable(id)
	}
	if !w.hasFeature(id) {
		if err := w.searchSkillAvailable(id); err != nil {
			return nil, err
		}
		if err := w.sandboxAvailable(); err != nil {
			return nil, err
		}
		return nil, errs.NoProcesses()
	}
	if spec.Writes && w.readOnly {
		return nil, errs.ReadOnlyMode(readOnlyOp[id])
	}
	args, err := json.Marshal(req)
	if err != nil {
		return nil, errs.Wrap(err)
	}
	name := w.exposedName(id)
	clean, err := spec.params.Validate(name, args)
	if err != nil {
		return nil, err
	}
	return w.invoke(ctx, spec, name, clean, req)
}

// exposedName is the name a tool is offered under.
func (w *Workspace) exposedName(id string) string {
	if n := w.cfg.Tool(id).Name; n != "" {
		return n
	}
	return id
}

// readOnlyOp names each write tool's operation in the read-only message.
var readOnlyOp = map[string]string{
	config.WriteFile: "write_file",
	config.EditFile:  "edit_file",
	config.Delete:    "delete",
	config.Mkdir:     "mkdir",
	config.AstEdit:   "ast_edit",
	config.Index:     "index",
}
