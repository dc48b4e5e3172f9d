package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// TestMediaResourceURI: a PDF read comes back as an embedded resource
// whose uri is a valid file URI of the file itself: absolute, with the
// characters a URI cannot hold as they are (space, #, %) escaped, so a
// client that parses it finds the file, not a path cut at '#' or one
// under the filesystem root.
func TestMediaResourceURI(t *testing.T) {
	ws, root := newTestWorkspace(t)
	pdf := []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
	for _, name := range []string{"doc.pdf", "sub dir/my doc#1 100%.pdf"} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(root, name)
			must(t, os.MkdirAll(filepath.Dir(file), 0o755))
			must(t, os.WriteFile(file, pdf, 0o644))
			h := NewHandler(ws, "test")
			ctx := context.Background()
			h.Handle(ctx, []byte(initialize))
			args, _ := json.Marshal(map[string]string{"path": name})
			out := h.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":`+string(args)+`}}`))
			var resp struct {
				Result struct {
					Content []struct {
						Type     string `json:"type"`
						Resource struct {
							URI string `json:"uri"`
						} `json:"resource"`
					} `json:"content"`
				} `json:"result"`
			}
			must(t, json.Unmarshal(out, &resp))
			if len(resp.Result.Content) != 2 || resp.Result.Content[1].Type != "resource" {
				t.Fatalf("no resource part: %s", out)
			}
			uri := resp.Result.Content[1].Resource.URI
			u, err := url.Parse(uri)
			if err != nil {
				t.Fatalf("uri %q: %v", uri, err)
			}
			real, _ := filepath.EvalSymlinks(file)
			if u.Scheme != "file" || u.Fragment != "" || u.RawQuery != "" || (u.Path != file && u.Path != real) {
				t.Errorf("uri %q names %q (scheme %q, fragment %q), not %q", uri, u.Path, u.Scheme, u.Fragment, file)
			}
		})
	}
}
