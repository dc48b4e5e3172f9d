package workspace

import (
	"encoding/json"
	"io"

	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/schema"
)

// The parameters of every tool in the table, in its order: each request
// struct is the tool's JSON Schema and validation (pkg/schema reads its
// tags: json names the parameter, without omitempty it is required; desc
// is what models are told; default, min, max, enum, coerce:"number" and
// null:"true" are Mastra's zod rules) and what its subcommand's flags fill.

// ReadRequest is the input of read (mastra_workspace_read_file).
type ReadRequest struct {
	Path            string `json:"path" desc:"File to read: relative to the workspace root, or absolute inside it."`
	Offset          *int   `json:"offset,omitempty" min:"1" desc:"First line to show, counting from 1. Text files only."`
	Limit           *int   `json:"limit,omitempty" min:"1" desc:"How many lines to show from offset. Default: to the end of the file, within the output budget."`
	ShowLineNumbers *bool  `json:"showLineNumbers,omitempty" default:"true" desc:"Prefix each line with its number and an arrow (default true)."`
	Encoding        string `json:"encoding,omitempty" enum:"utf-8,utf8,base64,hex,binary" desc:"Read raw bytes in this encoding instead of as text; needed for binary files."`
}

// WriteRequest is the input of write (mastra_workspace_write_file).
type WriteRequest struct {
	DryRun bool `json:"-"` // ws write --dry-run: show the diff, write nothing
	// Source, when set, holds the content instead of Content (ws write
	// reading stdin): it is streamed into the file, read once to its end.
	Source    io.Reader `json:"-"`
	Path      string    `json:"path" desc:"File to write; missing parent directories are created."`
	Content   string    `json:"content" desc:"The complete new content of the file."`
	Overwrite *bool     `json:"overwrite,omitempty" default:"true" desc:"Replace an existing file (default true); false fails if the file exists."`
}

// EditRequest is the input of edit (mastra_workspace_edit_file).
type EditRequest struct {
	DryRun     bool   `json:"-"` // ws edit --dry-run: show the diff, write nothing
	Path       string `json:"path" desc:"File to edit."`
	OldString  string `json:"old_string" desc:"Exact text to find. It must occur exactly once unless replace_all is set."`
	NewString  string `json:"new_string" desc:"Text to put in its place, taken literally."`
	ReplaceAll *bool  `json:"replace_all,omitempty" default:"false" desc:"Replace every occurrence instead of requiring a unique one (default false)."`
}

// ListRequest is the input of ls (mastra_workspace_list_files).
type ListRequest struct {
	Path             string                 `json:"path,omitempty" default:"\".\"" desc:"Directory to list, relative to the workspace root."`
	MaxDepth         *float64               `json:"maxDepth,omitempty" default:"2" desc:"How many levels to show (default 2)."`
	ShowHidden       *bool                  `json:"showHidden,omitempty" default:"false" desc:"Show names that start with a dot."`
	DirsOnly         *bool                  `json:"dirsOnly,omitempty" default:"false" desc:"Show directories only."`
	Exclude          string                 `json:"exclude,omitempty" desc:"Leave out entries matching any of these '|'-separated globs or name substrings, e.g. 'node_modules|*.min.js'."`
	Extension        string                 `json:"extension,omitempty" desc:"Show only files with this extension, e.g. 'ts' or '.ts'."`
	Pattern          schema.StringOrStrings `json:"pattern,omitempty" desc:"Show only files whose path (relative to the listed directory) matches this glob, or any of these globs, e.g. '**/*.test.ts'."`
	RespectGitignore *bool                  `json:"respectGitignore,omitempty" default:"true" desc:"Leave out what .gitignore and .ignore files exclude (default true)."`
	Long             bool                   `json:"-"` // ws ls --long: size and mtime per entry
}

// GlobRequest is the input of glob (ws's own tool).
type GlobRequest struct {
	Pattern          string `json:"pattern" desc:"Glob of the files to find, matched against their paths below path: '**/*.go' at any depth, 'src/**/*.test.ts', '*.md' at the top level only."`
	Path             string `json:"path,omitempty" default:"\".\"" desc:"Directory to search, relative to the workspace root."`
	IncludeHidden    *bool  `json:"includeHidden,omitempty" default:"false" desc:"Also find files in, and named, dot-names."`
	RespectGitignore *bool  `json:"respectGitignore,omitempty" default:"true" desc:"Leave out what .gitignore and .ignore files exclude (default true)."`
	MaxResults       *int   `json:"maxResults,omitempty" min:"0" default:"100" desc:"Show at most this many files, the newest (default 100; 0 shows all)."`

	Null bool `json:"-"` // ws glob -0: the paths end with NUL; the notices go to stderr
}

// DeleteRequest is the input of delete (mastra_workspace_delete).
type DeleteRequest struct {
	DryRun    bool   `json:"-"` // ws delete --dry-run: say what would go, delete nothing
	Path      string `json:"path" desc:"File or directory to delete. A symlink is removed, not what it points to."`
	Recursive *bool  `json:"recursive,omitempty" default:"false" desc:"Delete a directory with everything in it (default false: only empty directories)."`
}

// StatRequest is the input of stat (mastra_workspace_file_stat).
type StatRequest struct {
	Path string `json:"path" desc:"File or directory to describe. Symlinks are followed."`
}

// MkdirRequest is the input of mkdir (mastra_workspace_mkdir).
type MkdirRequest struct {
	Path      string `json:"path" desc:"Directory to create."`
	Recursive *bool  `json:"recursive,omitempty" default:"true" desc:"Create missing parent directories too (default true)."`
}

// GrepRequest is the input of grep (mastra_workspace_grep).
type GrepRequest struct {
	Pattern       string   `json:"pattern" desc:"Regular expression to find (Go RE2 syntax; lookaround and backreferences also work). Only the first match of each line is reported."`
	Path          string   `json:"path,omitempty" default:"\".\"" desc:"File, directory or glob to search (e.g. 'src', 'src/**/*.ts'), relative to the workspace root."`
	ContextLines  *float64 `json:"contextLines,omitempty" default:"0" desc:"Lines of context to show around each match."`
	MaxCount      *float64 `json:"maxCount,omitempty" desc:"At most this many matching lines per file."`
	CaseSensitive *bool    `json:"caseSensitive,omitempty" default:"true" desc:"Match case exactly (default true)."`
	IncludeHidden *bool    `json:"includeHidden,omitempty" default:"false" desc:"Also search files and directories whose names start with a dot."`
	Multiline     *bool    `json:"multiline,omitempty" ws:"only" desc:"Let a match span lines (ws only): \\n, \\s and [^x] then match line ends ('.' does not; [\\s\\S] does), ^ and $ match at each line, and every line a match covers is reported."`

	// The subcommand's ripgrep-style flags (not JSON parameters).
	MorePaths []string `json:"-"` // PATH arguments after the first
	FilesOnly bool     `json:"-"` // -l: the paths of the files with a match
	Without   bool     `json:"-"` // -L: the paths of the files searched without a match
	CountOnly bool     `json:"-"` // -c: path:count for each file with a match
	Quiet     bool     `json:"-"` // -q: nothing printed; the exit status says
	After     *int     `json:"-"` // -A: context lines after a match (over -C)
	Before    *int     `json:"-"` // -B: context lines before a match (over -C)
	Word      bool     `json:"-"` // -w
	Fixed     bool     `json:"-"` // -F
	Invert    bool     `json:"-"` // -v
	Globs     []string `json:"-"` // -g, repeatable, ! negates
	Types     []string `json:"-"` // --type, repeatable
	NoIgnore  bool     `json:"-"` // --no-ignore
	Only      bool     `json:"-"` // -o: each match's own text, not its line
	Null      bool     `json:"-"` // -0: with -c, a NUL between path and count (the caller ends -l's paths with NUL)
	// Events, when set, gets ripgrep's --json messages as files are
	// found (ws grep --jsonl); the result's text is then empty.
	Events func(grep.Event) `json:"-"`
	// Rows, when set, gets -l's or -L's paths or -c's path:count lines (names as
	// their bytes) as files are found, in walk order; the result's text
	// is then empty. The result's data is the same.
	Rows func(row string) `json:"-"`
}

// SearchRequest is the input of search (mastra_workspace_search).
type SearchRequest struct {
	Query    string   `json:"query" desc:"Words to look for; documents holding more of the rarer ones rank higher."`
	TopK     *float64 `json:"topK,omitempty" default:"5" desc:"How many documents to return at most (default 5)."`
	Mode     string   `json:"mode,omitempty" enum:"bm25,vector,hybrid" desc:"Ranking method: bm25 (keywords), vector (meaning; needs an embedder) or hybrid (both, half each). Default: hybrid when both are configured, else the one that is."`
	MinScore *float64 `json:"minScore,omitempty" desc:"Leave out documents scoring below this: a raw BM25 score in bm25 mode, a cosine similarity (-1 to 1) in vector mode, the 0-1 combination in hybrid mode."`
}

// IndexRequest is the input of index (mastra_workspace_index). Mastra's
// optional metadata object is not taken: ws's parameter schemas have no
// object kind yet.
type IndexRequest struct {
	Path     string          `json:"path" desc:"Name of the document, shown as its id in search results; indexing the same name again replaces it."`
	Content  string          `json:"content" desc:"The text to make searchable."`
	Metadata json.RawMessage `json:"metadata,omitempty" desc:"Any facts to keep with the document (a JSON object); search results carry them in their data."`
	Auto     bool            `json:"-"` // ws index --auto: walk the autoIndexPaths again instead
}

// ExecRequest is the input of exec (mastra_workspace_execute_command).
type ExecRequest struct {
	Command    string   `json:"command" desc:"Shell command line, run with /bin/sh -c in the workspace root (or cwd)."`
	Timeout    *float64 `json:"timeout,omitempty" coerce:"number" min:"0" null:"true" desc:"Seconds before the command is stopped (TERM, then KILL 2 s later), fractions kept to the nanosecond; 0 means no limit. Default: the sandbox timeout (300 s); none for background commands."`
	Cwd        string   `json:"cwd,omitempty" null:"true" desc:"Working directory, relative to the workspace root or absolute inside it."`
	Tail       *int     `json:"tail,omitempty" coerce:"number" null:"true" desc:"Show only the last N lines of each stream (default 200; 0 shows all). A trailing '| tail -N' in the command is applied the same way."`
	Background *bool    `json:"background,omitempty" desc:"Start the command in the background and return its PID at once; read its output later with get_process_output."`
	Env        []string `json:"env,omitempty" desc:"Extra environment variables for this command, each NAME=value."`
	StdinPipe  *bool    `json:"stdinPipe,omitempty" ws:"only" desc:"With background=true: keep the command's stdin open as a pipe that send_input writes to (ws only; without it stdin is empty)."`
	TTY        *bool    `json:"tty,omitempty" ws:"only" desc:"With background=true: run the command on a pseudo-terminal (80x24) of its own, for programs that behave differently off a terminal (REPL prompts, line-buffered output). send_input writes to it, and its echo puts the input in the output; stdout holds all output, CR LF shown as LF (ws only)."`
	// Stdin is what a foreground command reads (ws exec --stdin passes
	// ws's own stdin); nil is /dev/null. Not a JSON parameter.
	Stdin io.Reader `json:"-"`
}

// ProcessOutputRequest is the input of ps-output (mastra_workspace_get_process_output).
type ProcessOutputRequest struct {
	PID         string   `json:"pid" desc:"PID of a background process started by execute_command."`
	Tail        *int     `json:"tail,omitempty" coerce:"number" desc:"Show only the last N lines of each stream (default 200; 0 shows all)."`
	Wait        *bool    `json:"wait,omitempty" desc:"Wait for the process to exit before answering."`
	WaitTimeout *float64 `json:"waitTimeout,omitempty" coerce:"number" min:"0" desc:"Wait at most this many seconds for the process to exit (implies wait), then answer with the output so far."`
	SinceLast   *bool    `json:"sinceLast,omitempty" ws:"only" desc:"Show only the output that is new since the last sinceLast call for this process in this conversation (ws only)."`
	Filter      string   `json:"filter,omitempty" ws:"only" desc:"Keep only the output lines that match this regular expression (RE2 syntax; ws only)."`
}

// KillRequest is the input of kill (mastra_workspace_kill_process).
type KillRequest struct {
	PID string `json:"pid" desc:"PID of a background process started by execute_command."`
	// Signal is the signal ws kill --signal sends (a name such as "HUP" or
	// "SIGHUP", or a number); "" is TERM. Not a JSON parameter.
	Signal string `json:"-"`
}

// SendInputRequest is the input of send (send_input, a ws tool).
type SendInputRequest struct {
	PID     string   `json:"pid" desc:"PID of a background process started by execute_command with background=true and stdinPipe=true (or tty=true)."`
	Input   string   `json:"input,omitempty" desc:"Text to write to the process's stdin, exactly as given: end it with a newline to submit a line."`
	EOF     *bool    `json:"eof,omitempty" desc:"After the input, close the process's stdin, so that it reads end of file (on a tty: send ^D, the terminal's end of file, which does not close it)."`
	Timeout *float64 `json:"timeout,omitempty" coerce:"number" min:"0" desc:"Seconds to wait for the process to take the input (default 10; 0 means no limit). When it does not, the error says how many bytes went in."`
	// Source, when set, is sent instead of Input (ws send -): streamed to
	// the process as it is read, until its end. Not a JSON parameter.
	Source io.Reader `json:"-"`
}

// SkillRequest is the input of skill.
type SkillRequest struct {
	Name string `json:"name" desc:"Skill to load: its name, or its directory path when two skills have the same name."`
}

// SkillSearchRequest is the input of skill_search.
type SkillSearchRequest struct {
	Query      string   `json:"query" desc:"What to look for in the skills' instructions and reference files."`
	SkillNames []string `json:"skillNames,omitempty" desc:"Only search these skills."`
	TopK       *float64 `json:"topK,omitempty" desc:"How many passages to return at most (default 5)."`
}

// SkillReadRequest is the input of skill_read.
type SkillReadRequest struct {
	SkillName string   `json:"skillName" desc:"Skill whose file to read: its name, or its directory path when two skills have the same name."`
	Path      string   `json:"path" desc:"File below the skill's directory, such as references/guide.md or scripts/build.sh."`
	StartLine *float64 `json:"startLine,omitempty" desc:"First line to show, counting from 1 (default: the first)."`
	EndLine   *float64 `json:"endLine,omitempty" desc:"Last line to show, included (default: the last)."`
}

// ws's own tools (offered to models when the config's tools.wsTools is on).

// MultiEditRequest is the input of multi_edit: several edits of one file,
// made in order, all or none.
type MultiEditRequest struct {
	Path   string   `json:"path" desc:"File to edit."`
	Edits  []EditOp `json:"edits" min:"1" desc:"The edits, applied in order to the result of the ones before; if any fails, none is made."`
	DryRun bool     `json:"-"` // ws edit --edits --dry-run
}

// EditOp is one edit of a multi-edit, with edit_file's parameters.
type EditOp struct {
	OldString  string `json:"old_string" desc:"Text to find, copied from the file. It must occur once unless replace_all is set."`
	NewString  string `json:"new_string" desc:"Text to put in its place, taken literally."`
	ReplaceAll *bool  `json:"replace_all,omitempty" default:"false" desc:"Replace every occurrence (default false)."`
}

// PatchRequest is the input of apply_patch.
type PatchRequest struct {
	Input  string `json:"input" desc:"The patch: Codex's envelope (*** Begin Patch, *** Add File: / *** Update File: / *** Delete File:, @@ context lines, *** End Patch) or a unified diff as git diff prints it. Every file is checked before any is written; all change or none."`
	DryRun bool   `json:"-"` // ws patch --dry-run
}

// MoveRequest is the input of move (move_file).
type MoveRequest struct {
	DryRun      bool   `json:"-"` // ws move --dry-run: say what would move, move nothing
	Source      string `json:"source" desc:"File, symbolic link or directory to move (a link is moved itself, not what it points to; a directory with everything in it)."`
	Destination string `json:"destination" desc:"Its new path (not a directory to move it into); missing directories are made."`
	Overwrite   *bool  `json:"overwrite,omitempty" default:"false" desc:"Replace a file already at destination, or, when moving a directory, an empty directory there (default false: refused). A directory that holds anything is never replaced."`
}

// NotebookReadRequest is the input of notebook (notebook_read).
type NotebookReadRequest struct {
	Path    string `json:"path" desc:"Jupyter notebook (.ipynb) to show."`
	CellID  string `json:"cellId,omitempty" desc:"Show only this cell, with its outputs in full: its id, or its index from 0 (-1 is the last)."`
	Outputs *bool  `json:"outputs,omitempty" default:"true" desc:"Show the outputs of code cells (default true); long ones keep their first and last lines."`
	From    *int   `json:"fromCell,omitempty" min:"0" desc:"Start at the cell with this index (default 0), to see the cells after those an earlier call showed."`
}

// NotebookEditRequest is the input of notebook-edit (notebook_edit).
type NotebookEditRequest struct {
	DryRun    bool    `json:"-"` // ws notebook-edit --dry-run: show the change, write nothing
	Path      string  `json:"path" desc:"Jupyter notebook (.ipynb) to change."`
	CellID    string  `json:"cellId,omitempty" desc:"The cell to replace or delete: its id, or its index from 0 (-1 is the last). With editMode insert, the new cell goes after it; without cellId, first."`
	NewSource *string `json:"newSource,omitempty" desc:"The cell's whole new source (replace), or the new cell's (insert)."`
	CellType  string  `json:"cellType,omitempty" enum:"code,markdown,raw" desc:"replace: change the cell to this type (outputs go when a code cell stops being one); insert: the new cell's type (default code)."`
	EditMode  string  `json:"editMode,omitempty" default:"\"replace\"" enum:"replace,insert,delete" desc:"replace the cell's source, insert a new cell, or delete the cell (default replace)."`
}

// UndoRequest is the input of undo.
type UndoRequest struct {
	// Path is nil for the workspace's last change; an empty one is
	// refused, not taken for none (ws undo "$FILE" with FILE unset).
	Path  *string `json:"path,omitempty" desc:"File (or directory) whose last change by ws to take back. Without it, the last change ws made in the workspace. A change is taken back whole: all the files of a patch together, even when path names one of them."`
	Force *bool   `json:"force,omitempty" default:"false" desc:"Take the change back even if the file was changed since (default false: refused, with the reason)."`
}

// The requests that take --dry-run say so to invoke (dryRunner).

func (r WriteRequest) dryRun() bool        { return r.DryRun }
func (r EditRequest) dryRun() bool         { return r.DryRun }
func (r DeleteRequest) dryRun() bool       { return r.DryRun }
func (r MultiEditRequest) dryRun() bool    { return r.DryRun }
func (r PatchRequest) dryRun() bool        { return r.DryRun }
func (r MoveRequest) dryRun() bool         { return r.DryRun }
func (r NotebookEditRequest) dryRun() bool { return r.DryRun }
