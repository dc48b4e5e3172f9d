package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/workspace"
)

// version is set at build time with -ldflags "-X github.com/wstools/ws/cmd.version=…".
var version = "dev"

// toolCommands makes the subcommand of each entry of the tool table, by
// the table's Command; a test checks that the two lists agree.
var toolCommands = map[string]func(*App) *cobra.Command{
	"read":          func(a *App) *cobra.Command { return newReadCmd(a, nil) },
	"write":         func(a *App) *cobra.Command { return newWriteCmd(a, nil) },
	"edit":          func(a *App) *cobra.Command { return newEditCmd(a, nil) },
	"delete":        func(a *App) *cobra.Command { return newDeleteCmd(a, nil) },
	"stat":          func(a *App) *cobra.Command { return newStatCmd(a, nil) },
	"mkdir":         func(a *App) *cobra.Command { return newMkdirCmd(a, nil) },
	"ls":            func(a *App) *cobra.Command { return newLsCmd(a, nil) },
	"grep":          func(a *App) *cobra.Command { return newGrepCmd(a, nil) },
	"search":        func(a *App) *cobra.Command { return newSearchCmd(a, nil) },
	"index":         func(a *App) *cobra.Command { return newIndexCmd(a, nil) },
	"exec":          func(a *App) *cobra.Command { return newExecCmd(a, nil) },
	"ps-output":     func(a *App) *cobra.Command { return newPSOutputCmd(a, nil) },
	"kill":          func(a *App) *cobra.Command { return newKillCmd(a, nil) },
	"skill":         func(a *App) *cobra.Command { return newSkillCmd(a, nil) },
	"skill search":  func(a *App) *cobra.Command { return newSkillSearchCmd(a, nil) },
	"skill read":    func(a *App) *cobra.Command { return newSkillReadCmd(a, nil) },
	"patch":         func(a *App) *cobra.Command { return newPatchCmd(a, nil) },
	"undo":          func(a *App) *cobra.Command { return newUndoCmd(a, nil) },
	"glob":          func(a *App) *cobra.Command { return newGlobCmd(a, nil) },
	"send":          func(a *App) *cobra.Command { return newSendCmd(a, nil) },
	"move":          func(a *App) *cobra.Command { return newMoveCmd(a, nil) },
	"notebook":      func(a *App) *cobra.Command { return newNotebookCmd(a, nil) },
	"notebook-edit": func(a *App) *cobra.Command { return newNotebookEditCmd(a, nil) },
}

// modeOf tells a table Command that is a mode of another command, run by
// one of its flags ("edit --edits"): the command and the flag.
func modeOf(command string) (cmd, flag string, ok bool) {
	cmd, flag, ok = strings.Cut(command, " --")
	return cmd, flag, ok
}

// otherCommands are ws's commands that run no tool of the table.
var otherCommands = map[string]func(*App) *cobra.Command{
	"history":      newHistoryCmd,
	"ps":           newPSCmd,
	"__supervise":  func(*App) *cobra.Command { return newSuperviseCmd() },
	"__callbacks":  func(*App) *cobra.Command { return newCallbacksCmd() },
	"__landlock":   newLandlockCmd,
	"call":         newCallCmd,
	"tools":        newToolsCmd,
	"upload":       newUploadCmd,
	"instructions": newInstructionsCmd,
	"mcp":          newMCPCmd,
	"remote":       newRemoteCmd,
	"__selfcheck":  func(*App) *cobra.Command { return newSelfcheckCmd() },
	"info":         newInfoCmd,
	"destroy":      newDestroyCmd,
}

// newRootCmd makes ws's whole command tree.
func newRootCmd(app *App) *cobra.Command { return newRoot(app, "") }

// newRootFor makes the tree a command line needs: the root and the one
// command it names, when it names one (a process runs one command: making
// the others is start-up time wasted); the whole tree for help, for
// completion and for anything it does not know.
func newRootFor(app *App, args []string) *cobra.Command {
	name, version := commandName(args)
	switch {
	case name == "" && version:
		return newRoot(app, "--version")
	case name == "rm":
		return newRoot(app, "delete")
	case name == "mv":
		return newRoot(app, "move")
	case toolCommands[name] != nil || otherCommands[name] != nil:
		return newRoot(app, name)
	}
	return newRoot(app, "")
}

// commandName is the first argument that is not a flag (skipping the
// values of the global flags), and whether --version was asked.
func commandName(args []string) (name string, version bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", version
		case a == "--version" || a == "-v":
			version = true
		case a == "--root" || a == "--config" || a == "--state-dir" || a == "--thread" || a == "--remote":
			i++ // its value
		case !strings.HasPrefix(a, "-"):
			return a, version
		}
	}
	return "", version
}

// newRoot makes the root with the command only (its first word), or with
// every command when only is "", or with none for "--version".
func newRoot(app *App, only string) *cobra.Command {
	want := func(command string) bool {
		first, _, _ := strings.Cut(command, " ")
		return only == "" || first == only
	}
	root := &cobra.Command{
		Use:   "ws",
		Short: "A workspace for agents and scripts: files, search, shell commands",
		Long: `ws gives AI agents and shell scripts a workspace: read, write and edit files,
list and search trees, run commands. Each subcommand is one tool, with the
same parameters and output as Mastra's workspace tools; 'ws call' runs any
tool from JSON arguments and 'ws tools' describes them for function calling.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
		// With no subcommand ws shows its help; an unknown one is a usage
		// error (cobra's own would be an untyped error).
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	app.bindGlobalFlags(root)
	root.SetHelpFunc(app.helpFunc(root.HelpFunc()))
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
		"{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}",
		"{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}\n\nA boolean flag takes =true or =false too, as in --json=false.{{end}}", 1))
	// The subcommands of the tool table, in its order, then ws's own.
	byPath := map[string]*cobra.Command{}
	for _, t := range workspace.Tools() {
		if _, _, ok := modeOf(t.Command); ok || !want(t.Command) {
			continue // a flag of a command made here, or not asked for
		}
		c := toolCommands[t.Command](app)
		c.Annotations = map[string]string{"tool": t.ID}
		if t.Cancellable {
			c.Annotations[interruptibleKey] = "true"
		}
		byPath[t.Command] = c
		if parent, ok := parentOf(t.Command); ok {
			byPath[parent].AddCommand(c)
		} else {
			root.AddCommand(c)
		}
	}
	for _, name := range []string{"history", "ps", "__supervise", "call", "tools", "upload", "instructions", "mcp", "remote", "__remote", "__selfcheck", "info", "destroy", "__callbacks", "__landlock"} {
		if want(name) {
			root.AddCommand(otherCommands[name](app))
		}
	}
	// A tree made for one command needs no completion command: cobra
	// would make it on every run (Execute), for nothing.
	root.CompletionOptions.DisableDefaultCmd = only != ""
	if only == "" {
		// cobra's completion command shows its help for a shell it does
		// not know and exits 0: make that a usage error.
		root.InitDefaultCompletionCmd()
		for _, c := range root.Commands() {
			if c.Name() == "completion" {
				c.Args = func(cmd *cobra.Command, args []string) error {
					if len(args) > 0 {
						return usagef("unknown shell %q: bash, zsh, fish or powershell", args[0])
					}
					return nil
				}
				c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
			}
		}
		// cobra's help shows ws's own help, exit 0, for a topic it does
		// not know (ws help raed): make that the usage error ws raed is.
		root.InitDefaultHelpCmd()
		for _, c := range root.Commands() {
			if c.Name() == "help" {
				c.Args = func(cmd *cobra.Command, args []string) error {
					if found, _, err := root.Find(args); len(args) > 0 && (err != nil || found == root) {
						return usagef("unknown command %q", args[0])
					}
					return nil
				}
			}
		}
	}
	for _, c := range allCommands(root) {
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, app.argv) })
		if run := c.RunE; run != nil && c != root {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if err := run(cmd, args); err != nil {
					return &ranError{err}
				}
				return nil
			}
		}
	}
	return root
}

// parentOf is the command above a nested one: "skill" for "skill search".
func parentOf(path string) (string, bool) {
	i := strings.LastIndexByte(path, ' ')
	if i < 0 {
		return "", false
	}
	return path[:i], true
}

// allCommands is the command and everything below it.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// toolCmd makes the subcommand of a tool whose options are its request.
// bind declares the flags into the request; fill completes it from the
// arguments (and stdin) when the command runs. runF, the seam tests fill,
// gets the finished request; nil runs the tool and prints its outcome.
func toolCmd[Req any](app *App, id string, runF func(context.Context, *Req) error, c *cobra.Command,
	bind func(b *binder, req *Req), fill func(cmd *cobra.Command, args []string, req *Req) error) *cobra.Command {
	req := new(Req)
	spec, _ := workspace.Spec(id)
	if runF == nil {
		runF = func(ctx context.Context, req *Req) error { return app.runTool(ctx, id, *req) }
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if fill != nil {
			if err := fill(cmd, args, req); err != nil {
				return err
			}
		}
		return runF(cmd.Context(), req)
	}
	if bind != nil {
		bind(&binder{f: c.Flags(), spec: spec}, req)
	}
	return c
}

// exactArgs is cobra.ExactArgs with a usage error and our wording.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return exactArgsOr(n, what, "")
}

// exactArgsOr is exactArgs whose error, for more arguments than n, adds
// where what they hold goes instead (ws write f 'text': the content goes
// in --content).
func exactArgsOr(n int, what, extra string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) > n && extra != "":
			return usagef("takes %s (got %s): %s", what, argCount(len(args)), extra)
		case len(args) != n:
			return usagef("takes %s (got %s)", what, argCount(len(args)))
		}
		return nil
	}
}

// queryArgs takes a QUERY of one or more words (search and skill search
// join them with spaces: ws search reset password is one query).
func queryArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usagef("takes a QUERY (got 0 arguments)")
	}
	return nil
}

// argCount says how many arguments were given: "1 argument", "2 arguments".
func argCount(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}

// rangeArgs takes between lo and hi arguments.
func rangeArgs(lo, hi int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("takes %s (got %s)", what, argCount(len(args)))
		}
		return nil
	}
}

// stdinSource is stdin as the source of what --flag would give.
func stdinSource(app *App, flag string) (io.Reader, error) {
	return stdinReader(app, "give the content with --"+flag+", or pipe it on stdin")
}

// stdinReader is stdin for a command that reads it, refused with the hint
// (how to give the input) when stdin is a terminal, which would be waited
// on, or a directory (ws write f < dir: reading it fails with EISDIR,
// which the tool would blame on the file it writes).
func stdinReader(app *App, hint string) (io.Reader, error) {
	if app.IO.InTTY {
		return nil, usagef("%s", hint)
	}
	if err := app.stdinTaken(); err != nil {
		return nil, err
	}
	if f, ok := app.IO.In.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, usagef("stdin is a directory: %s", hint)
		}
	}
	return app.IO.In, nil
}

// stdinTaken refuses to read stdin when it is the --config file (--config
// /dev/stdin) and a pipe: the config has used it up, and the command would
// read nothing (ws write would empty the file). A regular file on stdin is
// read afresh by each open, so it is not taken.
func (a *App) stdinTaken() error {
	f, ok := a.IO.In.(*os.File)
	if !ok || a.opts.config == "" {
		return nil
	}
	in, err := f.Stat()
	if err != nil || in.Mode().IsRegular() {
		return nil
	}
	if cfg, err := os.Stat(a.opts.config); err == nil && os.SameFile(in, cfg) {
		return usagef("stdin is the --config file (%s), which used it up: give the config as a file of its own", a.opts.config)
	}
	return nil
}

// stdinOr reads stdin for a flag that was not given (a terminal on stdin
// is refused rather than waited on).
func stdinOr(app *App, set bool, value, flag string) (string, error) {
	if set {
		return value, nil
	}
	in, err := stdinSource(app, flag)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// fileOr is the text of a --x / --x-file pair: the flag's value, or the
// content of the file the other names (- for stdin); one of them is
// required.
func fileOr(app *App, f *pflag.FlagSet, value, file, flag string) (string, error) {
	set := changed(f, flag)
	switch {
	case file != "" && set:
		return "", usagef("give --%s or --%s-file, not both", flag, flag)
	case file == "-":
		in, err := stdinReader(app, "--"+flag+"-file -: pipe the text on stdin")
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(in)
		return string(data), err
	case file != "":
		data, err := app.readFile(file)
		if err != nil {
			return "", usagef("--%s-file: %s", flag, errs.Errno(err))
		}
		return string(data), nil
	case !set:
		return "", usagef("--%s or --%s-file is required", flag, flag)
	}
	return value, nil
}

// stringVar declares a plain string flag whose zero value is "not given".
func stringVar(f *pflag.FlagSet, p *string, name, usage string) { f.StringVar(p, name, "", usage) }

// changed is a flag's Changed, for flags declared with plain pflag values.
func changed(f *pflag.FlagSet, name string) bool {
	fl := f.Lookup(name)
	return fl != nil && fl.Changed
}

// notBoth refuses two flags given together.
func notBoth(f *pflag.FlagSet, a, b string) error {
	if changed(f, a) && changed(f, b) {
		return usagef("give --%s or --%s, not both", a, b)
	}
	return nil
}

// pathArg fills a request's one positional argument, its path.
func pathArg[Req any](field func(*Req) *string) func(*cobra.Command, []string, *Req) error {
	return func(cmd *cobra.Command, args []string, req *Req) error {
		*field(req) = args[0]
		return nil
	}
}

// helpFunc wraps cobra's help, which -h asks for wherever it stands in a
// run of short flags: `ws grep -hi x` (grep's -h, no file names) or
// `ws ls -lah` (ls's -h, sizes) printed the help and exited 0, which a
// script or an agent reads as a search that found nothing. An -h that
// came in a run is a usage error instead (App.helpInRun), naming the run
// and what it is without the h; -h or --help alone shows the help.
func (a *App) helpFunc(show func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		if run, rest := helpRun(c, args); run != "" {
			msg := fmt.Sprintf("-h in %s asks for help, and goes alone (ws %s -h)", run, c.Name())
			if rest != "" {
				msg += "; without it: -" + rest
			}
			a.helpInRun = usagef("%s", msg)
			return
		}
		show(c, args)
	}
}

// helpRun finds the run of short flags on a command line that set c's
// help flag, and the run without its h; "" when help was not asked by a
// flag, or was asked alone (-h, --help). A flag of the run that takes a
// value takes the rest of the run, as pflag reads it.
func helpRun(c *cobra.Command, args []string) (run, rest string) {
	if f := c.Flags().Lookup("help"); f == nil || !f.Changed {
		return "", ""
	}
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "-h" || arg == "--help" || strings.HasPrefix(arg, "--help=") {
			return "", ""
		}
	}
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if len(arg) < 3 || arg[0] != '-' || arg[1] == '-' {
			continue
		}
		var others strings.Builder
		for i := 1; i < len(arg); i++ {
			ch := arg[i : i+1]
			if ch == "h" {
				return arg, others.String() + strings.ReplaceAll(arg[i+1:], "h", "")
			}
			if f := c.Flags().ShorthandLookup(ch); f == nil || f.NoOptDefVal == "" {
				break // an unknown flag, or one whose value is the rest
			}
			others.WriteString(ch)
		}
	}
	return "", ""
}
