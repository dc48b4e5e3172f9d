package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/internal/tick"
)

// DefaultProgressEvery is how often a tool call that asked for progress
// (a progressToken in its _meta) is told it is still running: well
// within the 60 s a TypeScript SDK client waits by default, which such a
// client restarts on each notification when it sets
// resetTimeoutOnProgress.
const DefaultProgressEvery = 10 * time.Second

// Options are what both transports take.
type Options struct {
	// ProgressEvery is the interval of the progress notifications of a
	// call that asks for them (0: DefaultProgressEvery; negative: none).
	ProgressEvery time.Duration
}

// progressEvery is the interval opts give.
func (opts Options) progressEvery() time.Duration {
	if opts.ProgressEvery == 0 {
		return DefaultProgressEvery
	}
	return opts.ProgressEvery
}

// progressParams are notifications/progress's: the token of the request
// they report on, a number that grows with each, and a message.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Message       string          `json:"message,omitempty"`
}

// progressToken is the token a request's _meta carries, when it is one
// MCP allows (a string or a number); nil otherwise.
func progressToken(meta json.RawMessage) json.RawMessage {
	var m struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return nil
	}
	tok := bytes.TrimSpace(m.ProgressToken)
	if len(tok) == 0 {
		return nil
	}
	switch c := tok[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return tok
	}
	return nil
}

// reportProgress tells the client, every interval until the returned stop
// is called, that the call of tool with the token is still running: the
// seconds it has run as the progress. stop returns once no notification
// can follow, so none comes after the call's answer. Without a token, a
// sender or an interval, it does nothing.
func (h *Handler) reportProgress(ctx context.Context, tool string, token json.RawMessage) (stop func()) {
	h.mu.Lock()
	send, every := h.send, h.progressEvery
	h.mu.Unlock()
	if token == nil || send == nil || every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick.Every(ctx.Done(), every, func(now time.Time) bool {
			ran := now.Sub(start).Seconds()
			msg, err := jsonenc.Marshal(notification{JSONRPC: "2.0", Method: "notifications/progress", Params: progressParams{
				ProgressToken: token,
				Progress:      ran,
				Message:       tool + " still running after " + strconv.FormatFloat(math.Round(ran*10)/10, 'f', -1, 64) + " s",
			}})
			return err == nil && send(ctx, msg) == nil
		})
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}
