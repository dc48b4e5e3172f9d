package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The cost of one tools/call (file_stat: the cheapest tool, so the transport shows) over each
// transport, from a client on the same machine: over stdio (pipes, as a
// client that starts ws mcp has them) and over streamable HTTP on
// loopback (the SDK's client, one session). Their difference is what
// --http adds per call:
//
//	go test -run - -bench Call ./pkg/mcp
func BenchmarkCallStdio(b *testing.B) {
	ws, _ := newTestWorkspace(b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(context.Background(), ws, "bench", inR, outW, Options{})
	defer inW.Close()
	out := bufio.NewReader(outR)
	roundTrip := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			b.Fatal(err)
		}
		if _, err := out.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip(initialize)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mastra_workspace_file_stat","arguments":{"path":"a.txt"}}}`
	b.ResetTimer()
	for b.Loop() {
		roundTrip(call)
	}
}

func BenchmarkCallHTTP(b *testing.B) {
	ws, _ := newTestWorkspace(b)
	url, stop := startHTTP(b, ws, HTTPOptions{})
	defer stop()
	s, err := connect(b, url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	params := &sdk.CallToolParams{Name: "mastra_workspace_file_stat", Arguments: json.RawMessage(`{"path":"a.txt"}`)}
	b.ResetTimer()
	for b.Loop() {
		if res, err := s.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
