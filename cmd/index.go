package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newSearchCmd(app *App) *cobra.Command {
	var req workspace.SearchRequest
	var topK, minScore float64
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the indexed documents (BM25)",
		Long: `Rank the documents of the workspace's search index with BM25 and print
them whole, best first. The index lives in the state directory; the
config's autoIndexPaths are indexed the first time, and files indexed from
disk that changed since are read again before each search.`,
		Example: `  ws search 'reset password'
  ws search billing --top-k 10 --min-score 0.5`,
		Args: exactArgs(1, "one QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Query = args[0]
			f := cmd.Flags()
			if f.Changed("top-k") {
				req.TopK = &topK
			}
			if f.Changed("min-score") {
				req.MinScore = &minScore
			}
			return app.runTool(cmd.Context(), workspace.Search, req)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&topK, "top-k", 5, "at most N results (topK)")
	f.StringVar(&req.Mode, "mode", "", "search mode: bm25 (vector and hybrid need an embedder)")
	f.Float64Var(&minScore, "min-score", 0, "leave out results scoring below X (raw BM25 score)")
	return cmd
}

func newIndexCmd(app *App) *cobra.Command {
	var req workspace.IndexRequest
	var auto bool
	cmd := &cobra.Command{
		Use:   "index PATH | --auto",
		Short: "Add a document to the search index, or refresh the autoIndexPaths",
		Long: `Index content under PATH (the document's id in search results), from
--content or stdin; a document with the same id is replaced. With --auto,
walk the config's autoIndexPaths again: new files are indexed, changed ones
read again, and files that are gone dropped.`,
		Example: `  ws index docs/faq.md --content 'Password reset: go to settings.'
  curl -s https://example.com/page | ws index pages/example
  ws index --auto`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case auto && len(args) > 0:
				return usagef("ws index --auto takes no PATH")
			case !auto && len(args) != 1:
				return usagef(fmt.Sprintf("ws index takes one PATH, or --auto (got %d arguments)", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			if auto {
				if cmd.Flags().Changed("content") {
					return usagef("ws index --auto takes no --content")
				}
				return app.refreshIndex(cmd)
			}
			req.Path = args[0]
			if !cmd.Flags().Changed("content") {
				if app.IO.InTTY {
					return usagef("ws index: give the content with --content, or pipe it on stdin")
				}
				data, err := io.ReadAll(app.IO.In)
				if err != nil {
					return err
				}
				req.Content = string(data)
			}
			return app.runTool(cmd.Context(), workspace.Index, req)
		},
	}
	cmd.Flags().StringVar(&req.Content, "content", "", "the document's text (default: read stdin to EOF)")
	cmd.Flags().BoolVar(&auto, "auto", false, "walk the config's autoIndexPaths again instead")
	return cmd
}

// refreshIndex runs `ws index --auto`.
func (a *App) refreshIndex(cmd *cobra.Command) error {
	ws, err := a.Workspace()
	if err != nil {
		return a.fail(workspace.Index, err)
	}
	res, err := ws.RefreshIndex(cmd.Context(), workspace.RefreshIndexRequest{})
	return a.print(workspace.Index, res, err)
}
