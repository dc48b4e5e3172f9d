package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newSearchCmd(app *App, runF func(context.Context, *workspace.SearchRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Search, runF, &cobra.Command{
		Use:   "search QUERY…",
		Short: "Search the indexed documents (BM25, vector or hybrid)",
		Long: `Rank the documents of the workspace's search index and print them whole,
best first: by keywords (BM25), by meaning (vector: the config's embedder)
or both (hybrid). The index lives in the state directory; the config's
autoIndexPaths are indexed the first time, and files indexed from disk that
changed since are read again before each search. Several QUERY words are
one query, as if quoted.`,
		Example: `  ws search reset password
  ws search billing --top-k 10 --min-score 0.5`,
		Args: queryArgs,
	}, func(b *binder, req *workspace.SearchRequest) {
		b.countIn(&req.TopK, "top-k", "", b.atLeast("topK", 1), "5", "at most N results (topK)")
		b.choice(&req.Mode, "mode", "mode", "search mode: bm25, vector (needs an embedder) or hybrid (needs both); default: all that is configured")
		b.number(&req.MinScore, "min-score", "minScore", "score", "a number", "", "leave out results scoring below X (raw BM25 score, cosine, or the hybrid combination)")
	}, func(cmd *cobra.Command, args []string, req *workspace.SearchRequest) error {
		req.Query = strings.Join(args, " ")
		return nil
	})
}
