package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"sync"

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

// Serve runs the server on a stdio pair (ws's stdin and stdout) until the
// client goes away. A line that is not JSON is answered with a JSON-RPC
// parse error and the session goes on (the SDK alone would end it).
func Serve(ctx context.Context, ws *workspace.Workspace, version string, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	return NewServer(ws, version).Run(ctx, &sdk.IOTransport{
		Reader: &lineGuard{r: bufio.NewReaderSize(in, 64<<10), out: w},
		Writer: w,
	})
}

// lockedWriter serialises whole frames from the SDK and from lineGuard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// parseError is JSON-RPC's answer to a message that is not JSON.
const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n"

// lineGuard hands the SDK the lines of r that are JSON, and answers the
// others itself.
type lineGuard struct {
	r       *bufio.Reader
	out     io.Writer
	pending []byte
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		line, err := g.r.ReadBytes('\n')
		if body := bytes.TrimSpace(line); len(body) > 0 {
			if json.Valid(body) {
				g.pending = append(body, '\n')
			} else if _, werr := io.WriteString(g.out, parseError); werr != nil {
				return 0, werr
			}
		}
		if err != nil && len(g.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *lineGuard) Close() error { return nil }

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
