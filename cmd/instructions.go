package cmd

import (
	"encoding/json"

	"github.com/spf13/cobra"
)

func newInstructionsCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:     "instructions",
		Short:   "Print the workspace description for a model's system prompt",
		Example: `  ws instructions >> system-prompt.txt`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("instructions", err)
			}
			text := ws.Instructions()
			return app.print("instructions", &plainResult{text: text, data: map[string]string{"instructions": text}}, nil)
		},
	}
}

// plainResult is a result of a ws command that is not a tool: its text,
// and the data --json shows.
type plainResult struct {
	text string
	data any
}

// Text is what text mode prints.
func (r *plainResult) Text() string { return r.text }

// MarshalJSON is the envelope's data.
func (r *plainResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.data) }
