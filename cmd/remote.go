package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wstools/ws/pkg/remote"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/workspace"
)

// remoteInstallTool names ws remote install in JSON envelopes.
const remoteInstallTool = "remote install"

// localFileFlag marks a flag whose value names a local file the command
// reads (upload --messages, edit --old-file): with --remote, the file is
// read here and sent over the session.
const localFileFlag = "ws_local_file"

// localFiles marks the named flags of f as local input files.
func localFiles(f *pflag.FlagSet, names ...string) {
	for _, n := range names {
		f.SetAnnotation(n, localFileFlag, []string{"true"})
	}
}

// localFileArgs are the commands whose arguments are local files.
var localFileArgs = map[string]bool{"upload": true, "patch": true}

// localCommands run here even with --remote: they concern this ws.
var localCommands = map[string]bool{
	"": true, "help": true, "completion": true, "remote": true,
	"__supervise": true, "__remote": true, "__selfcheck": true,
	cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true,
}

// remoteAsked reports whether a command line may ask for --remote (or
// WS_REMOTE does), before it is parsed.
func (a *App) remoteAsked(args []string) bool {
	if a.session != nil {
		return false // serving: --remote was the caller's
	}
	name, version := commandName(args)
	if version || localCommands[name] {
		return false
	}
	for _, arg := range args {
		switch {
		case arg == "--":
			return os.Getenv("WS_REMOTE") != ""
		case arg == "--remote" || strings.HasPrefix(arg, "--remote="):
			return true
		}
	}
	return os.Getenv("WS_REMOTE") != ""
}

// remoteRun runs the command of root's line in the remote workspace, when
// --remote (or WS_REMOTE) asks for one: ok is false when it does not.
func (a *App) remoteRun(ctx context.Context, root *cobra.Command, args []string) (cmd *cobra.Command, err error, ok bool) {
	if !a.remoteAsked(args) {
		return nil, nil, false
	}
	c, rest, err := root.Find(args)
	if err != nil {
		return nil, nil, false
	}
	// Help is asked by the flag, not by a word: --content -h is data.
	c.InitDefaultHelpFlag()
	if c.ParseFlags(rest) != nil || a.opts.remote == "" {
		// Not a command line this ws can read: the remote would only say so
		// too, and the local run says it in the same words.
		return nil, nil, false
	}
	if help, _ := c.Flags().GetBool("help"); help {
		return nil, nil, false
	}
	t, err := remote.Parse(a.opts.remote)
	if err != nil {
		return c, usagef("--remote: %v", err), true
	}
	ssh, err := sshCommand()
	if err != nil {
		return c, usagef("%v", err), true
	}
	f := c.Flags()
	head := []string{}
	if t.Root != "" {
		if changed(f, "root") {
			return c, usagef("--root: the workspace root is the path of the --remote URL"), true
		}
		head = append(head, "--root", t.Root)
	}
	if th := os.Getenv("WS_THREAD"); th != "" && !changed(f, "thread") {
		head = append(head, "--thread", th) // a thread is data, not a local path
	}
	sigc := make(chan os.Signal, 2)
	runner.NotifyStops(sigc) // passed on; a hangup only when not ignored here (nohup)
	// ^Z: ws tells the remote side before it stops.
	if !signal.Ignored(syscall.SIGTSTP) {
		signal.Notify(sigc, syscall.SIGTSTP)
	}
	defer signal.Stop(sigc)
	inputs := localInputs(c)
	code, err := remote.Run(ctx, remote.Call{
		Target: t,
		SSH:    ssh,
		Header: remote.Header{
			Version:    version,
			Args:       append(head, withoutRemote(c.Flags(), args)...),
			StdinTTY:   a.IO.InTTY,
			StdoutTTY:  a.IO.OutTTY,
			Inputs:     inputs,
			InputSizes: inputSizes(inputs),
		},
		Open:   a.openFile,
		Stdin:  a.IO.In,
		Stdout: a.IO.Out,
		// --json: stdout never ends in half an envelope (a connection
		// that ends in the middle of one).
		WholeLines: a.opts.json,
		Stderr:     a.IO.Err,
		Signals:    sigc,
		Repeat:     repeatWindow(),
	})
	isExec := c.Name() == "exec" && c.Parent() == root
	var after *remote.AfterOutput
	switch {
	case errors.As(err, &after) && a.opts.json && following(c, root):
		// JSON Lines (ps-output --follow): the stream ends in an "error"
		// line, as a local one does, so that a reader who takes the lines
		// as they come learns how it ended (it ended with the last whole
		// line of output, and the error on stderr only).
		_ = render.NewStream(a.IO, true).End(workspace.GetProcessOutput, nil, err)
		return c, &exitStatusError{exitFailure}, true
	case errors.As(err, &after) && a.opts.json:
		// The remote command's envelope is on stdout (what the
		// connection cut short of a line was dropped): the error goes to
		// stderr, not in a second envelope.
		render.Error(a.IO, err)
		if isExec {
			return c, &exitStatusError{exitWSFailed}, true
		}
		return c, &exitStatusError{exitFailure}, true
	case err != nil && isExec:
		a.fail(workspace.ExecuteCommand, err)
		return c, &exitStatusError{exitWSFailed}, true
	case err != nil && c.Name() == "call" && c.Parent() == root && c.Flags().NArg() > 0:
		// As a local call that fails before its tool runs: the envelope
		// names the tool called (the call command has no tool of its own).
		return c, &ranError{a.fail(c.Flags().Arg(0), err)}, true
	case err != nil:
		return c, &ranError{err}, true
	case code != 0:
		return c, &exitStatusError{code}, true
	}
	return c, nil, true
}

// following reports a ps-output --follow command line: its --json is
// JSON Lines, not one envelope.
func following(c, root *cobra.Command) bool {
	follow, _ := c.Flags().GetBool("follow")
	return follow && c.Name() == "ps-output" && c.Parent() == root
}

// withoutRemote is the command line args without its --remote flags: the
// remote side has no use for the target, and an exec: prefix may hold a
// credential (kubectl --token=…) that must not reach the sandbox it names.
// f, the parsed flags of the command, tells the flags that take their
// value from the next word, so a value that reads "--remote" stays.
func withoutRemote(f *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	takesNext := func(fl *pflag.Flag) bool { return fl != nil && fl.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--remote":
			i++ // and its value
			continue
		case strings.HasPrefix(a, "--remote="):
			continue
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if takesNext(f.Lookup(a[2:])) && i+1 < len(args) {
				out = append(out, a)
				i++
				a = args[i]
			}
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			// -abc: the first letter that takes a value takes the rest,
			// or the next word when it is the last.
			for j := 1; j < len(a); j++ {
				if !takesNext(f.ShorthandLookup(a[j : j+1])) {
					continue
				}
				if j == len(a)-1 && i+1 < len(args) {
					out = append(out, a)
					i++
					a = args[i]
				}
				break
			}
		}
		out = append(out, a)
	}
	return out
}

// sshCommand is WS_SSH_COMMAND split into words as a shell would (nil:
// ssh from the PATH).
func sshCommand() ([]string, error) {
	words, err := remote.SplitWords(os.Getenv("WS_SSH_COMMAND"))
	if err != nil {
		return nil, fmt.Errorf("WS_SSH_COMMAND: %v", err)
	}
	return words, nil
}

// inputSizes are the sizes of the regular files among paths (-1 for
// anything else): the remote command sees them before it asks for the
// bytes, so that an upload over its limit is refused before it crosses.
func inputSizes(paths []string) []int64 {
	sizes := make([]int64, len(paths))
	for i, p := range paths {
		sizes[i] = -1
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			sizes[i] = fi.Size()
		}
	}
	return sizes
}

// localInputs are the local files a parsed command line reads.
func localInputs(c *cobra.Command) []string {
	var out []string
	seen := map[string]bool{}
	add := func(path string) {
		if path != "" && path != "-" && !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Changed && fl.Annotations[localFileFlag] != nil {
			add(fl.Value.String())
		}
	})
	if localFileArgs[c.Name()] && c.Parent() == c.Root() {
		for _, a := range c.Flags().Args() {
			add(a)
		}
	}
	return out
}

// __remote runs a whole command line, so it joins the table here (its
// entry in the literal would make the table refer to itself).
func init() { otherCommands["__remote"] = newRemoteServeCmd }

func newRemoteServeCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:                "__remote",
		Short:              "Serve one command of a remote ws over stdin and stderr (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The frames go to the transport on stderr: when it is gone
			// (the connection dropped) a write must fail, not end ws by
			// SIGPIPE before the hangup reaches the command, which would
			// leave what the command started running, orphaned.
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			code := remote.Serve(app.IO.In, app.IO.Err, version, func(s *remote.Session) int {
				inner := newApp(&render.IO{In: s.Stdin, Out: app.IO.Out, Err: s.Stderr, InTTY: s.StdinTTY, OutTTY: s.StdoutTTY})
				inner.session = s
				defer inner.close()
				return inner.run(cmd.Context(), s.Args)
			})
			return exitStatus(code)
		},
	}
}

func newRemoteCmd(app *App) *cobra.Command {
	c := &cobra.Command{
		Use:   "remote",
		Short: "Work with the ws of a remote workspace (see --remote)",
		Args:  exactArgs(0, "a subcommand: install"),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	c.AddCommand(&cobra.Command{
		Use:   "install URL",
		Short: "Copy this ws to a remote workspace (same version, checked by sha256)",
		// A signal ends the copy: the transport reads the binary itself,
		// and would go on installing it after ws had gone.
		Annotations: map[string]string{interruptibleKey: "true"},
		Long: `Copy this ws binary to the target of URL (as --remote takes it:
ssh://[user@]host[:port]/path or exec:PREFIX) into a directory the remote
user can write: the first writable one on the remote PATH under its home,
else the first writable one on the PATH, else ~/.local/bin. The copy is
checked by sha256 and by running it before it takes its place; when the
same ws is there already nothing is copied. It prints where ws is.
The binary must run there as it is: build ws with CGO_ENABLED=0 for a
static one, for the remote's architecture.`,
		Example: `  ws remote install ssh://dev@build-box
  ws remote install 'exec:docker exec -i sandbox-7'
  ws remote install 'exec:kubectl exec -i agent-pod -c work --'`,
		Args: exactArgs(1, "one URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := remote.Parse(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			ssh, err := sshCommand()
			if err != nil {
				return usagef("%v", err)
			}
			res, err := remote.Install(cmd.Context(), t, ssh, self, version)
			if err != nil {
				return app.fail(remoteInstallTool, err)
			}
			return app.print(remoteInstallTool, &res, nil)
		},
	})
	return c
}

func newSelfcheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__selfcheck",
		Short:  "Print this binary's version and sha256 (internal, for ws remote install)",
		Hidden: true,
		Args:   exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			line, err := remote.Selfcheck(version, self)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write([]byte(line + "\n"))
			return err
		},
	}
}
