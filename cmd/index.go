package cmd

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newIndexCmd(app *App, runF func(context.Context, *workspace.IndexRequest) error) *cobra.Command {
	var metadata string
	return toolCmd(app, workspace.Index, runF, &cobra.Command{
		Use:   "index PATH | --auto",
		Short: "Add a document to the search index, or refresh the autoIndexPaths",
		Long: `Index content under PATH (the document's id in search results), from
--content or stdin (an empty stdin is refused: PATH names the document,
no file is read); a document with the same id is replaced. With --auto,
walk the config's autoIndexPaths again: new files are indexed, changed ones
read again, files that are gone dropped, and what was passed over (binary or
unreadable files, symlinks leading out, patterns that match nothing) listed.`,
		Example: `  ws index docs/faq.md --content 'Password reset: go to settings.'
  curl -s https://example.com/page | ws index pages/example --metadata '{"source":"web"}'
  ws index --auto`,
	}, func(b *binder, o *workspace.IndexRequest) {
		stringVar(b.f, &o.Content, "content", "the document's text (default: read stdin to EOF)")
		stringVar(b.f, &metadata, "metadata", "facts to keep with the document, a JSON object")
		b.f.BoolVar(&o.Auto, "auto", false, "walk the config's autoIndexPaths again instead")
	}, func(cmd *cobra.Command, args []string, o *workspace.IndexRequest) (err error) {
		f := cmd.Flags()
		if o.Auto {
			switch {
			case len(args) > 0:
				return usagef("--auto takes no PATH")
			case changed(f, "content") || changed(f, "metadata"):
				return usagef("--auto takes no --content or --metadata")
			}
			return nil
		}
		if len(args) != 1 {
			return usagef("takes one PATH, or --auto (got %s)", argCount(len(args)))
		}
		if args[0] == "" {
			// ws call keeps Mastra's acceptance of an empty id.
			return usagef("path is empty: give the document's id, e.g. docs/faq.md (search results show it)")
		}
		o.Path = args[0]
		if changed(f, "metadata") {
			if t := strings.TrimSpace(metadata); !json.Valid([]byte(t)) || !strings.HasPrefix(t, "{") {
				return usagef("--metadata must be a JSON object")
			}
			o.Metadata = json.RawMessage(metadata)
		}
		fromStdin := !changed(f, "content")
		if o.Content, err = stdinOr(app, !fromStdin, o.Content, "content"); err != nil {
			return err
		}
		if fromStdin && o.Content == "" {
			// An empty document matches nothing, and it would replace one
			// indexed from the file PATH: ws index PATH does not read PATH.
			return usagef("stdin is empty: give the document's text with --content or on stdin (PATH is only the document's id: ws index PATH < FILE indexes a file's text)")
		}
		return nil
	})
}
