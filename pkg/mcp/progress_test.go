package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestProgress runs a slow call over stdio with and without a progress
// token: a call that asks hears it still runs, with its token and a
// growing progress, and hears nothing once it is answered.
func TestProgress(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	call := func(meta string) string {
		params := `{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 0.8; echo done"}` + meta + `}`
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}` + "\n"
	}
	tests := []struct {
		name    string
		every   time.Duration
		meta    string
		token   string // the token the notifications carry; "" for none
		atLeast int
	}{
		{"string token", 100 * time.Millisecond, `,"_meta":{"progressToken":"t-1"}`, `"t-1"`, 2},
		{"number token", 100 * time.Millisecond, `,"_meta":{"progressToken":7}`, `7`, 2},
		{"no token", 100 * time.Millisecond, ``, ``, 0},
		{"a token that is neither", 100 * time.Millisecond, `,"_meta":{"progressToken":{"x":1}}`, ``, 0},
		{"turned off", -1, `,"_meta":{"progressToken":"t-1"}`, ``, 0},
		{"an interval longer than the call", time.Minute, `,"_meta":{"progressToken":"t-1"}`, ``, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			must(t, Serve(context.Background(), ws, "test", strings.NewReader(init+call(tt.meta)), &out, Options{ProgressEvery: tt.every}))
			var progress []progressParams
			answered := false
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var msg struct {
					ID     *int
					Method string
					Params progressParams
					Result *callToolResult
				}
				must(t, json.Unmarshal([]byte(line), &msg))
				switch {
				case msg.Method == "notifications/progress":
					if answered {
						t.Errorf("a notification after the answer: %s", line)
					}
					progress = append(progress, msg.Params)
				case msg.ID != nil && *msg.ID == 1:
					answered = true
					if msg.Result == nil || msg.Result.IsError {
						t.Errorf("the call: %s", line)
					}
				}
			}
			if !answered {
				t.Fatalf("no answer in %s", out.String())
			}
			if len(progress) < tt.atLeast || tt.atLeast == 0 && len(progress) > 0 {
				t.Fatalf("%d notifications, want at least %d (none when 0): %s", len(progress), tt.atLeast, out.String())
			}
			for i, p := range progress {
				if string(p.ProgressToken) != tt.token {
					t.Errorf("notification %d has token %s, want %s", i, p.ProgressToken, tt.token)
				}
				if i > 0 && p.Progress <= progress[i-1].Progress {
					t.Errorf("progress went from %v to %v", progress[i-1].Progress, p.Progress)
				}
				if !strings.HasPrefix(p.Message, "mastra_workspace_execute_command still running after ") {
					t.Errorf("message %q", p.Message)
				}
			}
		})
	}
}

func TestProgressToken(t *testing.T) {
	for meta, want := range map[string]string{
		``:                                ``,
		`{}`:                              ``,
		`{"progressToken":null}`:          ``,
		`{"progressToken":"abc"}`:         `"abc"`,
		`{"progressToken":-3}`:            `-3`,
		`{"progressToken":[1]}`:           ``,
		`{"progressToken":true}`:          ``,
		`"not an object"`:                 ``,
		`{"progressToken": 12 }`:          `12`,
		`{"other":1,"progressToken":"x"}`: `"x"`,
	} {
		if got := string(progressToken(json.RawMessage(meta))); got != want {
			t.Errorf("progressToken(%s) = %s, want %s", meta, got, want)
		}
	}
}
