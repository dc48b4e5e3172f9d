package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/workspace"
)

// capture returns a runF that records the request it gets, as JSON (a
// write's content streamed from stdin included).
func capture[Req any](got *string) func(context.Context, *Req) error {
	return func(_ context.Context, req *Req) error {
		if w, ok := any(req).(*workspace.WriteRequest); ok && w.Source != nil {
			data, err := io.ReadAll(w.Source)
			if err != nil {
				return err
			}
			w.Content, w.Source = string(data), nil
		}
		b, err := json.Marshal(req)
		*got = string(b)
		return err
	}
}

// captured builds, with newCmd, a command whose runF records its request
// in got (see capture).
func captured[Req any](newCmd func(*App, func(context.Context, *Req) error) *cobra.Command) func(app *App, got *string) *cobra.Command {
	return func(app *App, got *string) *cobra.Command { return newCmd(app, capture[Req](got)) }
}

// TestCommandRequests checks, for every subcommand of a tool, that the
// command line fills the request it should (the runF seam stands in for
// the tool), and that bad command lines are usage errors.
func TestCommandRequests(t *testing.T) {
	dir := t.TempDir()
	oldFile := filepath.Join(dir, "old.txt")
	if err := os.WriteFile(oldFile, []byte("from file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		cmd   func(app *App, got *string) *cobra.Command
		args  []string
		stdin string
		want  string // the request as JSON, or "usage: <message>"
	}{
		{"read", captured(newReadCmd), []string{"a.txt"}, "", `{"path":"a.txt"}`},
		{"read window", captured(newReadCmd), []string{"a.txt", "--offset", "3", "--limit=2", "--line-numbers=false", "--encoding", "hex"},
			"", `{"path":"a.txt","offset":3,"limit":2,"showLineNumbers":false,"encoding":"hex"}`},
		{"read bad offset", captured(newReadCmd), []string{"a.txt", "--offset", "0"}, "", "usage: --offset must be an integer ≥ 1"},
		{"read bad encoding", captured(newReadCmd), []string{"a.txt", "--encoding", "utf16"}, "", "usage: --encoding must be one of utf-8, utf8, base64, hex, binary"},
		{"read no path", captured(newReadCmd), nil, "", "usage: takes one PATH (got 0 arguments)"},
		{"write content as argument", captured(newWriteCmd), []string{"f.txt", "hello"}, "", "usage: takes one PATH (got 2 arguments): the content goes in --content TEXT, or on stdin"},
		{"write no path", captured(newWriteCmd), nil, "", "usage: takes one PATH (got 0 arguments)"},
		{"edit texts as arguments", captured(newEditCmd), []string{"f.txt", "a", "b"}, "", "usage: takes one PATH (got 3 arguments): the texts go in --old TEXT and --new TEXT"},
		{"write", captured(newWriteCmd), []string{"w.txt", "--content", "hi"}, "", `{"path":"w.txt","content":"hi"}`},
		{"write stdin", captured(newWriteCmd), []string{"w.txt", "--overwrite=false"}, "piped\n", `{"path":"w.txt","content":"piped\n","overwrite":false}`},
		{"write empty content", captured(newWriteCmd), []string{"w.txt", "--content="}, "ignored", `{"path":"w.txt","content":""}`},
		{"edit", captured(newEditCmd), []string{"e.txt", "--old", "a", "--new", "b", "--replace-all"}, "",
			`{"path":"e.txt","old_string":"a","new_string":"b","replace_all":true}`},
		{"edit from files", captured(newEditCmd), []string{"e.txt", "--old-file", oldFile, "--new", ""}, "",
			`{"path":"e.txt","old_string":"from file\n","new_string":""}`},
		{"edit both", captured(newEditCmd), []string{"e.txt", "--old", "a", "--old-file", oldFile, "--new", "b"}, "", "usage: give --old or --old-file, not both"},
		{"edit no old", captured(newEditCmd), []string{"e.txt", "--new", "b"}, "", "usage: --old or --old-file is required"},
		{"edits", captured(newEditCmd), []string{"e.txt", "--edits", "-", "--dry-run"}, `[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true}]`,
			`{"path":"e.txt","old_string":"","new_string":"","multi":{"path":"e.txt","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true}]}}`},
		{"edits and old", captured(newEditCmd), []string{"e.txt", "--edits", "-", "--old", "x"}, "[]", "usage: give --edits or --old, not both"},
		{"edits not a list", captured(newEditCmd), []string{"e.txt", "--edits", "-"}, `{"old_string":"a"}`, "usage: --edits must hold a JSON list of {\"old_string\", \"new_string\", \"replace_all\"}"},
		{"edits without new_string", captured(newEditCmd), []string{"e.txt", "--edits", "-"}, `[{"old_string":"a"}]`, "usage: --edits: edit 1 needs new_string"},
		{"edits and more", captured(newEditCmd), []string{"e.txt", "--edits", "-"}, `[] []`,
			"usage: --edits must hold a JSON list of {\"old_string\", \"new_string\", \"replace_all\"}; there is more after the list"},
		{"delete", captured(newDeleteCmd), []string{"d", "-r"}, "", `{"path":"d","recursive":true}`},
		{"patch stdin", captured(newPatchCmd), []string{"--dry-run"}, "*** Begin Patch\n*** End Patch\n", `{"input":"*** Begin Patch\n*** End Patch\n"}`},
		{"patch file", captured(newPatchCmd), []string{oldFile}, "", `{"input":"from file\n"}`},
		{"undo", captured(newUndoCmd), []string{"a.txt", "--force"}, "", `{"path":"a.txt","force":true}`},
		{"undo all", captured(newUndoCmd), nil, "", `{}`},
		{"move", captured(newMoveCmd), []string{"a.txt", "b/c.txt"}, "", `{"source":"a.txt","destination":"b/c.txt"}`},
		{"move overwrite", captured(newMoveCmd), []string{"a.txt", "b.txt", "--overwrite"}, "", `{"source":"a.txt","destination":"b.txt","overwrite":true}`},
		{"move overwrite=false", captured(newMoveCmd), []string{"a.txt", "b.txt", "--overwrite=false"}, "", `{"source":"a.txt","destination":"b.txt","overwrite":false}`},
		{"stat", captured(newStatCmd), []string{"s"}, "", `{"path":"s"}`},
		{"mkdir", captured(newMkdirCmd), []string{"m", "--recursive=false"}, "", `{"path":"m","recursive":false}`},
		{"ls", captured(newLsCmd), nil, "", `{}`},
		{"ls all", captured(newLsCmd), []string{"src", "--max-depth", "4", "-a", "--dirs-only", "--exclude", "x|y", "--extension", "go",
			"--pattern", "*.go", "--pattern", "**/*_test.go", "--gitignore=false"}, "",
			`{"path":"src","maxDepth":4,"showHidden":true,"dirsOnly":true,"exclude":"x|y","extension":"go","pattern":["*.go","**/*_test.go"],"respectGitignore":false}`},
		{"ls fractional depth", captured(newLsCmd), []string{"--max-depth", "1.5"}, "", "usage: --max-depth must be an integer ≥ 1"},
		{"grep -m 0", captured(newGrepCmd), []string{"x", "-m", "0"}, "", "usage: --max-count must be an integer ≥ 1"},
		{"grep -C -1", captured(newGrepCmd), []string{"x", "-C", "-1"}, "", "usage: --context must be an integer ≥ 0"},
		{"search --top-k 0", captured(newSearchCmd), []string{"q", "--top-k", "0"}, "", "usage: --top-k must be an integer ≥ 1"},
		{"search --top-k 1e3", captured(newSearchCmd), []string{"q", "--top-k", "1e3"}, "", "usage: --top-k must be an integer ≥ 1 written in plain digits: 1000, not 1e3"},
		{"search --top-k 10.0", captured(newSearchCmd), []string{"q", "--top-k", "10.0"}, "", "usage: --top-k must be an integer ≥ 1 written in plain digits: 10, not 10.0"},
		{"search --top-k 0e0", captured(newSearchCmd), []string{"q", "--top-k", "0e0"}, "", "usage: --top-k must be an integer ≥ 1"},
		{"search --top-k 2.5", captured(newSearchCmd), []string{"q", "--top-k", "2.5"}, "", "usage: --top-k must be an integer ≥ 1"},
		{"search --top-k 1e300", captured(newSearchCmd), []string{"q", "--top-k", "1e300"}, "", "usage: --top-k must be an integer ≥ 1"},
		{"skill read --end-line 0", captured(newSkillReadCmd), []string{"s", "p", "--end-line", "0"}, "", "usage: --end-line must be an integer ≥ 1"},
		{"ps-output --filter (", captured(newPSOutputCmd), []string{"1", "--filter", "("}, "",
			"usage: --filter must be a regular expression (RE2): error parsing regexp: missing closing ): `(`"},
		{"index --metadata []", captured(newIndexCmd), []string{"x", "--metadata", "[]", "--content", "y"}, "", "usage: --metadata must be a JSON object"},
		{"exec empty", captured(newExecCmd), []string{"--", " "}, "", "usage: the COMMAND after -- is empty"},
		{"ls two paths", captured(newLsCmd), []string{"a", "b"}, "", "usage: takes at most one PATH (got 2 arguments)"},
		{"glob", captured(newGlobCmd), []string{"**/*.go", "src", "--hidden", "--no-ignore", "--max-results", "0", "-0"}, "",
			`{"pattern":"**/*.go","path":"src","includeHidden":true,"respectGitignore":false,"maxResults":0}`},
		{"glob --max-results -1", captured(newGlobCmd), []string{"x", "--max-results", "-1"}, "", "usage: --max-results must be an integer ≥ 0"},
		{"grep -0 alone", captured(newGrepCmd), []string{"-0", "x"}, "", "usage: -0 goes with -l, -L or -c: it ends the paths they print with a NUL"},
		{"grep -l -0", captured(newGrepCmd), []string{"-l0", "x"}, "", `{"pattern":"x"}`},
		{"grep -o -v", captured(newGrepCmd), []string{"-ov", "x"}, "", "usage: -o and -v cannot be used together: -v's lines have no match to show"},
		{"grep -o -A", captured(newGrepCmd), []string{"-o", "-A", "1", "x"}, "", "usage: -o shows matches, not lines: it does not go with -C, -A or -B"},
		{"grep -L -c", captured(newGrepCmd), []string{"-Lc", "x"}, "", "usage: -L cannot be used with -l, -c, -o or -q"},
		{"grep", captured(newGrepCmd), []string{"TODO"}, "", `{"pattern":"TODO"}`},
		{"grep all", captured(newGrepCmd), []string{"x", "src", "-C", "2", "-m", "5", "-i", "--hidden"}, "",
			`{"pattern":"x","path":"src","contextLines":2,"maxCount":5,"caseSensitive":false,"includeHidden":true}`},
		{"grep -i=false", captured(newGrepCmd), []string{"x", "--ignore-case=false"}, "", `{"pattern":"x","caseSensitive":true}`},
		{"grep -n -H", captured(newGrepCmd), []string{"-nH", "x", "--line-number", "--with-filename=false"}, "", `{"pattern":"x"}`},
		{"grep -rn", captured(newGrepCmd), []string{"-rn", "x", "."}, "", "usage: unknown flag -rn: ws grep searches directories recursively already; leave it out"},
		{"grep --include", captured(newGrepCmd), []string{"--include=*.go", "x"}, "", "usage: unknown flag --include: choose files with -g GLOB, and leave them out with -g '!GLOB'"},
		{"grep -E", captured(newGrepCmd), []string{"-E", "a|b"}, "", "usage: unknown flag -E: the pattern is a regular expression already (RE2, or ECMAScript for lookaround and backreferences); leave it out"},
		{"grep --files", captured(newGrepCmd), []string{"--files"}, "", "usage: unknown flag --files: ws glob lists files by name: ws glob '**/*' --max-results 0 lists every file a search reads (--hidden, --no-ignore as here)"},
		{"grep -lZ", captured(newGrepCmd), []string{"-lZ", "x"}, "", "usage: unknown flag -Z in -lZ: -0 (--null) ends each of -l's and -L's paths with a NUL, for xargs -0"},
		{"grep -name", captured(newGrepCmd), []string{"x", "-name", "*.go"}, "", "usage: unknown flag -name: choose the files searched by name with -g GLOB: ws grep PATTERN -g '*.go'"},
		{"grep -type", captured(newGrepCmd), []string{"x", "-type", "f"}, "", "usage: unknown flag -type: -t TYPE chooses files by type (-t go, -t py); ws grep reads files only"},
		{"grep -nz", captured(newGrepCmd), []string{"-nz", "x"}, "", `usage: unknown flag -z in -nz (an argument that starts with "-" goes after "--")`},
		{"ls -name", captured(newLsCmd), []string{"-name", "*.go"}, "", "usage: unknown flag -name: --pattern GLOB shows only the files that match it: ws ls --pattern '**/*.go'"},
		{"ls -type", captured(newLsCmd), []string{"-type", "d"}, "", "usage: unknown flag -type: --dirs-only shows directories only"},
		{"glob -print0", captured(newGlobCmd), []string{"*.go", "-print0"}, "", "usage: unknown flag -print0: -0 (--null) ends each path with a NUL, for xargs -0"},
		{"glob -maxdepth", captured(newGlobCmd), []string{".", "-maxdepth", "1"}, "", "usage: unknown flag -maxdepth: the PATTERN is the first argument, matched against paths below PATH: ws glob '**/*.go' (at any depth), ws glob '*.go' (the top level); directories are not listed"},
		{"glob -name", captured(newGlobCmd), []string{".", "-name", "*.go"}, "", "usage: unknown flag -name: the PATTERN is the first argument, matched against paths below PATH: ws glob '**/*.go' (at any depth), ws glob '*.go' (the top level); directories are not listed"},
		{"grep -e", captured(newGrepCmd), []string{"-e", "x"}, "", `usage: unknown flag -e: the PATTERN is the first argument (after --, when it starts with "-")`},
		{"grep -z", captured(newGrepCmd), []string{"-z", "x"}, "", `usage: unknown flag -z (an argument that starts with "-" goes after "--")`},
		{"grep --foo", captured(newGrepCmd), []string{"--foo", "d.txt"}, "", `usage: unknown flag --foo (an argument that starts with "-" goes after "--")`},
		{"read --foo", captured(newReadCmd), []string{"--foo", "d.txt"}, "", `usage: unknown flag --foo`},
		{"read -n", captured(newReadCmd), []string{"f.txt", "-n", "20"}, "", "usage: unknown flag -n: --limit N shows N lines, and --offset LINE where they start"},
		{"ls -R", captured(newLsCmd), []string{"-R"}, "", "usage: unknown flag -R: ws ls shows a tree; --max-depth N sets how deep (default 2)"},
		{"ls -la", captured(newLsCmd), []string{"-la"}, "", `{"showHidden":true}`},
		{"search", captured(newSearchCmd), []string{"q", "--top-k", "3", "--min-score", "0.5", "--mode", "bm25"}, "",
			`{"query":"q","topK":3,"mode":"bm25","minScore":0.5}`},
		{"index", captured(newIndexCmd), []string{"doc", "--content", "text", "--metadata", `{"a":1}`}, "",
			`{"path":"doc","content":"text","metadata":{"a":1}}`},
		{"index stdin", captured(newIndexCmd), []string{"doc"}, "body", `{"path":"doc","content":"body"}`},
		{"index auto", captured(newIndexCmd), []string{"--auto"}, "", `{"path":"","content":""}`},
		{"index auto with path", captured(newIndexCmd), []string{"--auto", "x"}, "", "usage: --auto takes no PATH"},
		{"exec", captured(newExecCmd), []string{"--timeout", "1.5", "--cwd", "sub", "--tail", "0", "--env", "A=1", "--", "echo", "hi"}, "",
			`{"command":"echo hi","timeout":1.5,"cwd":"sub","tail":0,"env":["A=1"]}`},
		{"exec --timeout 1m30s", captured(newExecCmd), []string{"--timeout", "1m30s", "--", "true"}, "", `{"command":"true","timeout":90}`},
		{"exec --timeout 500ms", captured(newExecCmd), []string{"--timeout=500ms", "--", "true"}, "", `{"command":"true","timeout":0.5}`},
		{"exec --timeout -1s", captured(newExecCmd), []string{"--timeout", "-1s", "--", "true"}, "", "usage: --timeout must be a number of seconds ≥ 0"},
		{"exec --timeout 5x", captured(newExecCmd), []string{"--timeout", "5x", "--", "true"}, "", "usage: --timeout must be a number of seconds ≥ 0"},
		{"send --timeout 2s", captured(newSendCmd), []string{"7", "x", "--timeout", "2s"}, "", `{"pid":"7","input":"x\n","timeout":2}`},
		{"exec background", captured(newExecCmd), []string{"--background", "--", "sleep 1"}, "", `{"command":"sleep 1","background":true}`},
		{"exec no command", captured(newExecCmd), nil, "", "usage: needs a COMMAND (after --)"},
		{"exec dash options", captured(newExecCmd), []string{"ls", "-la"}, "", `usage: unknown flag -la; ws's own flags come first, the command after "--": ws exec [flags] -- COMMAND`},
		{"ps-output", captured(newPSOutputCmd), []string{"42", "--tail", "5", "--wait", "--wait-timeout", "2"}, "",
			`{"pid":"42","tail":5,"wait":true,"waitTimeout":2}`},
		{"kill", captured(newKillCmd), []string{"42"}, "", `{"pid":"42"}`},
		{"skill", captured(newSkillCmd), []string{"pdf"}, "", `{"name":"pdf"}`},
		{"skill search", captured(newSkillSearchCmd), []string{"q", "--skill", "a", "--skill", "b", "--top-k", "2"}, "",
			`{"query":"q","skillNames":["a","b"],"topK":2}`},
		{"skill read", captured(newSkillReadCmd), []string{"pdf", "refs/x.md", "--start-line", "2", "--end-line", "3"}, "",
			`{"skillName":"pdf","path":"refs/x.md","startLine":2,"endLine":3}`},
		{"notebook", captured(newNotebookCmd), []string{"nb.ipynb"}, "", `{"path":"nb.ipynb"}`},
		{"notebook cell", captured(newNotebookCmd), []string{"nb.ipynb", "--cell", "-1", "--outputs=false"}, "", `{"path":"nb.ipynb","cellId":"-1","outputs":false}`},
		{"notebook from", captured(newNotebookCmd), []string{"nb.ipynb", "--from", "3"}, "", `{"path":"nb.ipynb","fromCell":3}`},
		{"notebook from -1", captured(newNotebookCmd), []string{"nb.ipynb", "--from", "-1"}, "", "usage: --from must be an integer ≥ 0"},
		{"notebook two paths", captured(newNotebookCmd), []string{"a.ipynb", "b.ipynb"}, "", "usage: takes one PATH (got 2 arguments)"},
		{"notebook-edit", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "ab12", "--source", "x = 1"}, "",
			`{"path":"nb.ipynb","cellId":"ab12","newSource":"x = 1"}`},
		{"notebook-edit empty source", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "0", "--source", ""}, "",
			`{"path":"nb.ipynb","cellId":"0","newSource":""}`},
		{"notebook-edit source stdin", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "0", "--source-file", "-", "--type", "markdown"}, "# T",
			`{"path":"nb.ipynb","cellId":"0","newSource":"# T","cellType":"markdown"}`},
		{"notebook-edit insert", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "-1", "--insert", "--source", "y"}, "",
			`{"path":"nb.ipynb","cellId":"-1","newSource":"y","editMode":"insert"}`},
		{"notebook-edit delete", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "2", "--delete"}, "",
			`{"path":"nb.ipynb","cellId":"2","editMode":"delete"}`},
		{"notebook-edit delete with source", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "2", "--delete", "--source", "x"}, "",
			`{"path":"nb.ipynb","cellId":"2","newSource":"x","editMode":"delete"}`},
		{"notebook-edit no source", captured(newNotebookEditCmd), []string{"nb.ipynb", "--cell", "2"}, "", "usage: --source or --source-file is required"},
		{"notebook-edit insert and delete", captured(newNotebookEditCmd), []string{"nb.ipynb", "--insert", "--delete"}, "", "usage: give --insert or --delete, not both"},
		{"notebook-edit bad type", captured(newNotebookEditCmd), []string{"nb.ipynb", "--type", "python"}, "", "usage: --type must be one of code, markdown, raw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(&render.IO{In: strings.NewReader(tt.stdin), Out: &strings.Builder{}, Err: &strings.Builder{}})
			var got string
			c := tt.cmd(app, &got)
			c.SetArgs(tt.args)
			c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, tt.args) })
			c.SilenceErrors, c.SilenceUsage = true, true
			err := c.Execute()
			if want, ok := strings.CutPrefix(tt.want, "usage: "); ok {
				var ue *usageError
				if !errors.As(err, &ue) || ue.msg != want {
					t.Errorf("error %v, want usage error %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if got != tt.want {
				t.Errorf("request\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestToolCommandsMatchTable checks that every entry of the tool table has
// its subcommand and that no subcommand runs a tool the table lacks.
func TestToolCommandsMatchTable(t *testing.T) {
	seen := map[string]bool{}
	root := newRootCmd(newApp(nil))
	for _, s := range workspace.Tools() {
		if name, flag, ok := modeOf(s.Command); ok {
			c, _, err := root.Find(strings.Fields(name))
			if err != nil || c.Flags().Lookup(flag) == nil {
				t.Errorf("tool %s: no flag --%s on ws %s", s.ID, flag, name)
			}
			continue
		}
		if toolCommands[s.Command] == nil {
			t.Errorf("tool %s: no subcommand %q", s.ID, s.Command)
		}
		seen[s.Command] = true
	}
	for name := range toolCommands {
		if !seen[name] {
			t.Errorf("subcommand %q runs no tool of the table", name)
		}
	}
	for _, s := range workspace.Tools() {
		if _, _, ok := modeOf(s.Command); ok {
			continue
		}
		c, _, err := root.Find(strings.Fields(s.Command))
		if err != nil || c.Annotations["tool"] != s.ID {
			t.Errorf("ws %s does not run %s", s.Command, s.ID)
		}
	}
}

// TestRootFor checks that a command line gets the command it names (and
// only that), and the whole tree when it names none.
func TestRootFor(t *testing.T) {
	tests := []struct {
		args []string
		want string // the commands made, sorted
	}{
		{[]string{"read", "a.txt"}, "read"},
		{[]string{"--root", "read", "stat", "x"}, "stat"},
		{[]string{"--json", "skill", "search", "q"}, "skill"},
		{[]string{"rm", "-r", "d"}, "delete"},
		{[]string{"mv", "a", "b"}, "move"},
		{[]string{"--version"}, ""},
		{[]string{"mcp"}, "mcp"},
	}
	for _, tt := range tests {
		var names []string
		for _, c := range newRootFor(newApp(nil), tt.args).Commands() {
			names = append(names, c.Name())
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("%v: commands %q, want %q", tt.args, got, tt.want)
		}
	}
	if n := len(newRootFor(newApp(nil), []string{"bogus"}).Commands()); n < 20 {
		t.Errorf("an unknown command gets %d commands, want the whole tree", n)
	}
}

// TestCLIOnlyFields checks the flags that fill request fields no JSON
// parameter has (json:"-"): --auto, --dry-run.
func TestCLIOnlyFields(t *testing.T) {
	run := func(c *cobra.Command, args ...string) {
		t.Helper()
		c.SetArgs(args)
		c.SilenceErrors, c.SilenceUsage = true, true
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	app := newApp(&render.IO{In: strings.NewReader("x"), Out: &strings.Builder{}, Err: &strings.Builder{}})
	var index workspace.IndexRequest
	run(newIndexCmd(app, func(_ context.Context, r *workspace.IndexRequest) error { index = *r; return nil }), "--auto")
	var write workspace.WriteRequest
	run(newWriteCmd(app, func(_ context.Context, r *workspace.WriteRequest) error { write = *r; return nil }), "a", "--dry-run")
	var edit editOptions
	run(newEditCmd(app, func(_ context.Context, r *editOptions) error { edit = *r; return nil }), "a", "--old", "x", "--new", "y", "--dry-run")
	var del workspace.DeleteRequest
	run(newDeleteCmd(app, func(_ context.Context, r *workspace.DeleteRequest) error { del = *r; return nil }), "a", "--dry-run")
	var patch workspace.PatchRequest
	run(newPatchCmd(app, func(_ context.Context, r *workspace.PatchRequest) error { patch = *r; return nil }), "--dry-run")
	var move workspace.MoveRequest
	run(newMoveCmd(app, func(_ context.Context, r *workspace.MoveRequest) error { move = *r; return nil }), "a", "b", "--dry-run")
	var glob workspace.GlobRequest
	run(newGlobCmd(app, func(_ context.Context, r *workspace.GlobRequest) error { glob = *r; return nil }), "*", "-0")
	var grep workspace.GrepRequest
	run(newGrepCmd(app, func(_ context.Context, r *workspace.GrepRequest) error { grep = *r; return nil }), "x", "-c", "--null", "--only-matching", "--files-without-match=false")
	if !index.Auto || !write.DryRun || !edit.DryRun || !del.DryRun || !patch.DryRun || !move.DryRun {
		t.Errorf("auto %v, dry runs: write %v edit %v delete %v patch %v move %v", index.Auto, write.DryRun, edit.DryRun, del.DryRun, patch.DryRun, move.DryRun)
	}
	if !glob.Null || !grep.Null || !grep.CountOnly || !grep.Only {
		t.Errorf("glob -0 %v, grep -c --null %v %v", glob.Null, grep.Null, grep.CountOnly)
	}
}

// TestInterruptible checks which commands get a context that the first
// SIGINT or SIGTERM cancels: exactly those whose tool watches its context
// (or that run any tool: call, mcp), whether the line gets the whole tree
// or only its own command; read, stat and write keep the default signals.
func TestInterruptible(t *testing.T) {
	want := []string{"call", "exec", "grep", "index", "kill", "mcp", "patch", "ps-output", "remote install", "search", "send",
		"skill", "skill read", "skill search", "undo", "upload"}
	root := newRootCmd(newApp(nil))
	var got []string
	for _, c := range allCommands(root) {
		if c == root {
			continue
		}
		path := strings.TrimPrefix(c.CommandPath(), "ws ")
		if interruptible(root, strings.Fields(path)) {
			got = append(got, path)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("interruptible commands\n got %q\nwant %q", got, want)
	}
	for _, line := range [][]string{{"exec", "--", "sleep", "1"}, {"skill", "search", "q"}, {"--json", "grep", "x"}} {
		if !interruptible(newRootFor(newApp(nil), line), line) {
			t.Errorf("%q: not interruptible", line)
		}
	}
	for _, line := range [][]string{{"read", "a.txt"}, {"stat", "a.txt"}, {"write", "a.txt", "--content", "x"}, {"--version"}, {"bogus"}} {
		if interruptible(newRootFor(newApp(nil), line), line) {
			t.Errorf("%q: interruptible", line)
		}
	}
}
