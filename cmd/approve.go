package cmd

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/mattn/go-isatty"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/workspace"
	"golang.org/x/sys/unix"
)

// approver decides calls of tools that require approval: --yes approves
// them all; otherwise, when there is a controlling terminal, the user is
// asked y/N on /dev/tty (so stdin and stdout may be pipes); otherwise there
// is no approver and such calls are refused. A ws serving --remote asks
// no one.
func (a *App) approver() func(tool, summary string) (bool, error) {
	if a.opts.yes {
		return func(string, string) (bool, error) { return true, nil }
	}
	if os.Getenv("WS_FORCE_TTY") == "0" || a.noPrompt {
		return nil
	}
	if a.session != nil {
		// Serving --remote: a terminal found here is the caller's (a
		// transport that runs ws on its machine), where ws would stop
		// reading it from a background process group; over ssh there is
		// none. The caller approves with --yes.
		return func(tool, _ string) (bool, error) { return false, errs.NeedsApprovalRemote(tool) }
	}
	// The terminal is opened only when a call needs approval.
	return func(tool, summary string) (bool, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil || !isatty.IsTerminal(tty.Fd()) || !foreground(tty) {
			if tty != nil {
				tty.Close()
			}
			return false, errs.NeedsApproval(tool)
		}
		defer tty.Close()
		fmt.Fprintf(tty, "ws: allow %s? [y/N] ", oneLine(summary))
		line, _ := bufio.NewReader(tty).ReadString('\n')
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes", nil
	}
}

// foreground reports whether ws's process group is the terminal's
// foreground one. A background job (ws … &, a job of an agent's shell)
// that reads the terminal is stopped by SIGTTIN and waits for ever,
// unseen: it has no terminal to ask on.
func foreground(tty *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// oneLine is s with its control characters (line breaks, tabs) as
// spaces. Runs of spaces are kept: the question shows the call as it
// would run (echo 'a  b' is not echo 'a b').
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// confirmDestroy asks on the terminal before ws destroy (unless --yes).
func (a *App) confirmDestroy(ws *workspace.Workspace) error {
	if a.opts.yes {
		return nil
	}
	ask := a.approver()
	if ask == nil {
		return errs.DestroyNotConfirmed(false)
	}
	ok, err := ask("destroy", "ws destroy: stop the background processes of "+ws.Name()+" and remove its state directory "+ws.StateDir())
	switch {
	case err != nil:
		return errs.DestroyNotConfirmed(false)
	case !ok:
		return errs.DestroyNotConfirmed(true)
	}
	return nil
}
