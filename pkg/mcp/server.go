package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wstools/ws/pkg/workspace"
)

// NewServer builds an MCP server offering the workspace's tools.
func NewServer(ws *workspace.Workspace, version string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ws", Title: "ws workspace", Version: version},
		&sdk.ServerOptions{Instructions: ws.Instructions()})
	for _, o := range ws.Offered() {
		name := o.Name
		s.AddTool(&sdk.Tool{
			Name:        name,
			Description: o.Spec.Description,
			InputSchema: o.Spec.Schema(),
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: !o.Spec.Writes && o.Spec.ReadOnly()},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args := []byte(req.Params.Arguments)
			if len(args) == 0 {
				args = []byte("{}")
			}
			_, res, err := ws.Call(ctx, name, args)
			return toResult(res, err), nil
		})
	}
	return s
}

// Serve runs the server on stdin/stdout until the client goes away.
func Serve(ctx context.Context, ws *workspace.Workspace, version string) error {
	return NewServer(ws, version).Run(ctx, &sdk.StdioTransport{})
}

// toResult turns a tool outcome into MCP content: the text, a media part
// for media, and the data as structured content.
func toResult(res workspace.Result, err error) *sdk.CallToolResult {
	if err != nil {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text()}}}
	if r, ok := res.(*workspace.ReadResult); ok && r.IsMedia() {
		data, derr := base64.StdEncoding.DecodeString(r.Data)
		if derr == nil {
			if strings.HasPrefix(r.MediaType, "image/") {
				out.Content = append(out.Content, &sdk.ImageContent{Data: data, MIMEType: r.MediaType})
			} else {
				out.Content = append(out.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
					URI: "file:///" + string(r.Path), MIMEType: r.MediaType, Blob: data}})
			}
		}
		return out
	}
	if b, merr := json.Marshal(res); merr == nil && len(b) > 0 && b[0] == '{' {
		out.StructuredContent = json.RawMessage(b)
	}
	return out
}
