package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/schema"
)

func newCallCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "call TOOL [JSON|-]",
		Short: "Run a tool by its function-calling name with JSON arguments",
		Long: `Run a tool the way a function-calling model does: by its exposed name
(mastra_workspace_read_file, or the name the config gives it) with Mastra's
JSON arguments, given inline or on stdin with "-". Exit 0 means the call
succeeded; arguments that fail validation exit 2; a tool that is not offered
exits 1 with "tool not available".`,
		Example: `  ws call mastra_workspace_read_file '{"path":"a.txt","offset":3,"limit":2}'
  echo '{"path":"notes.md","content":"hi\n"}' | ws call mastra_workspace_write_file -`,
		// A call runs any tool, those that watch their context included.
		Annotations: map[string]string{interruptibleKey: "true"},
		Args:        rangeArgs(1, 2, "a TOOL name and JSON arguments (or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			input := "{}"
			if len(args) == 2 {
				input = args[1]
			}
			if input == "-" {
				if err := app.stdinTaken(); err != nil {
					return err
				}
				// One byte over the limit is enough to refuse the call.
				data, err := io.ReadAll(io.LimitReader(app.IO.In, schema.MaxArgsBytes+1))
				if err != nil {
					return err
				}
				// A byte order mark (Windows tools write one) is not
				// JSON, which a parser may skip (RFC 8259).
				input = strings.TrimPrefix(string(data), "\ufeff")
			}
			if strings.TrimSpace(input) == "" {
				input = "{}"
			}
			if len(args) == 2 && args[1] != "-" {
				if err := notAFile(args[0], input); err != nil {
					return err
				}
			}
			ws, err := app.Workspace()
			if err != nil {
				return app.fail(args[0], err)
			}
			spec, res, err := ws.Call(cmd.Context(), args[0], []byte(input))
			tool := args[0]
			if spec != nil {
				tool = spec.ID
			}
			if perr := render.ModelResult(app.IO, app.opts.json, tool, res, err); perr != nil {
				return perr
			}
			if err != nil {
				return &reported{err}
			}
			// A signal that stopped the tool (execute_command answers with
			// the status of the command it ended) ends ws as it ends exec.
			var sig *runner.SignalError
			if errors.As(context.Cause(cmd.Context()), &sig) {
				return &exitStatusError{128 + int(sig.Signal)}
			}
			return nil
		},
	}
}

// notAFile refuses arguments that are not JSON but name a file (curl's
// @FILE, or the path alone): ws call takes the JSON itself, and reads a
// file only as its stdin.
func notAFile(tool, input string) error {
	if json.Valid([]byte(input)) {
		return nil
	}
	name, at := strings.CutPrefix(input, "@")
	if fi, err := os.Stat(name); name == "" || !at && (err != nil || !fi.Mode().IsRegular()) {
		return nil
	}
	return usagef("%q is not JSON: ws call takes the JSON arguments themselves, or - to read them from stdin (ws call %s - < %s)",
		input, tool, name)
}
