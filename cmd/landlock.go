package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/landlock"
	"github.com/wstools/ws/pkg/render"
)

// newLandlockCmd is the launcher of sandbox.isolation "landlock": run by
// ws itself in the child of a command, it confines itself and executes the
// command, so the confinement never reaches the ws that keeps running.
func newLandlockCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:                "__landlock [--rw DIR]… [--deny-net] -- COMMAND…",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := landlock.Exec(args, os.Environ())
			render.Error(app.IO, fmt.Errorf("landlock launcher: %w", err))
			return &exitStatusError{code: 125}
		},
	}
}
