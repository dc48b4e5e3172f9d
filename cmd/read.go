package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newReadCmd(app *App, runF func(context.Context, *workspace.ReadRequest) error) *cobra.Command {
	return toolCmd(app, workspace.ReadFile, runF, &cobra.Command{
		Use:   "read PATH",
		Short: "Read a file: numbered lines, a line window, media or encoded bytes",
		Example: `  ws read src/app.ts
  ws read big.log --offset 200 --limit 50
  ws read firmware.bin --encoding hex
  ws read logo.png --json | jq -r .data.data   # a PNG is media: its base64 is in --json`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.ReadRequest) {
		b.int(&req.Offset, "offset", "", "offset", "1", "first line to show (1-based); with --encoding base64, hex or binary, the first byte")
		b.int(&req.Limit, "limit", "", "limit", "", "number of lines to show (default: to the end, within the output budget); with --encoding, of bytes")
		b.bool(&req.ShowLineNumbers, "line-numbers", "", true, "prefix lines with their numbers")
		b.choice(&req.Encoding, "encoding", "encoding", "read raw bytes as base64, hex or binary (latin1); utf-8 forces text (media files such as PNG or PDF stay media)")
	}, pathArg(func(req *workspace.ReadRequest) *string { return &req.Path }))
}
