package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// HTTP defaults.
const (
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 3
	DefaultBackoff    = 500 * time.Millisecond
	maxBackoff        = 10 * time.Second
	maxAnswerBytes    = 256 << 20
)

// HTTP is an embedder behind the OpenAI-compatible embeddings API: POST
// {"model", "input": [texts]} to URL, answer {"data": [{"index",
// "embedding"}]}.
type HTTP struct {
	URL   string
	Name  string // the model
	Key   string // sent as a bearer token when not empty; never printed
	Dims  int    // asked for as "dimensions" when not 0 (OpenAI's text-embedding-3 models take it)
	Batch int    // texts per request; 0: DefaultMaxBatch
	// Timeout bounds one request; 0: DefaultTimeout.
	Timeout time.Duration
	// Retries is how often a request answered with 429 or 5xx, or timed
	// out, is sent again; Backoff is the first wait, doubled each time.
	Retries int
	Backoff time.Duration
	Client  *http.Client // nil: a client of its own
}

// Model is the configured model name.
func (h *HTTP) Model() string { return h.Name }

// Endpoint is the URL without credentials, query or fragment.
func (h *HTTP) Endpoint() string { return Redact(h.URL) }

// Redact is a URL fit for messages: user information, query and fragment
// dropped (a key can hide in any of them).
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(the configured URL, which does not parse)"
	}
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return u.String()
}

// Embed sends the texts in batches.
func (h *HTTP) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return batches(ctx, h.Endpoint(), texts, h.Batch, h.request)
}

type openAIRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type openAIAnswer struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// request sends one batch, again after 429, 5xx or a timeout.
func (h *HTTP) request(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(openAIRequest{Model: h.Name, Input: texts, Dimensions: h.Dims})
	if err != nil {
		return nil, err
	}
	retries := h.Retries
	if retries < 0 {
		retries = 0
	}
	wait := h.Backoff
	if wait <= 0 {
		wait = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		vecs, after, err := h.once(ctx, body, len(texts))
		var ee *Error
		if err == nil || !errors.As(err, &ee) || !ee.Retryable || attempt >= retries || ctx.Err() != nil {
			if err != nil && attempt > 0 && ee != nil {
				ee.Msg += fmt.Sprintf(" (after %d attempts)", attempt+1)
			}
			return vecs, err
		}
		d := wait
		if after > 0 {
			d = after
		}
		d = min(d, maxBackoff)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// once sends one request; after is the wait a 429 or 503 asked for.
func (h *HTTP) once(ctx context.Context, body []byte, n int) ([][]float32, time.Duration, error) {
	ep := h.Endpoint()
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &Error{Endpoint: ep, Msg: "bad URL: " + scrub(err.Error(), h.URL, ep)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if h.Key != "" {
		req.Header.Set("Authorization", "Bearer "+h.Key)
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if rctx.Err() != nil {
			return nil, 0, &Error{Endpoint: ep, Msg: "no answer within " + timeout.String(), Retryable: true, Err: err}
		}
		return nil, 0, &Error{Endpoint: ep, Msg: "cannot reach it: " + netReason(err, h.URL, ep), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return nil, 0, &Error{Endpoint: ep, Msg: "no answer within " + timeout.String(), Retryable: true, Err: err}
		}
		return nil, 0, &Error{Endpoint: ep, Msg: "reading the answer: " + scrub(err.Error(), h.URL, ep), Err: err}
	}
	if resp.StatusCode/100 != 2 {
		msg := "HTTP " + strconv.Itoa(resp.StatusCode)
		if t := http.StatusText(resp.StatusCode); t != "" {
			msg += " " + t
		}
		if m := errorMessage(data); m != "" {
			msg += ": " + m
		}
		msg = h.hideKey(msg)
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retryAfter(resp.Header.Get("Retry-After")), &Error{Endpoint: ep, Msg: msg, Retryable: retry}
	}
	var ans openAIAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, 0, &Error{Endpoint: ep, Msg: "answer is not an embeddings response: " + firstLine(err.Error())}
	}
	if len(ans.Data) != n {
		return nil, 0, &Error{Endpoint: ep, Msg: countMismatch(len(ans.Data), n)}
	}
	sort.SliceStable(ans.Data, func(i, j int) bool { return ans.Data[i].Index < ans.Data[j].Index })
	raw := make([][]float64, n)
	for i, d := range ans.Data {
		if d.Index != i {
			return nil, 0, &Error{Endpoint: ep, Msg: fmt.Sprintf("answer's indexes are not 0 to %d", n-1)}
		}
		raw[i] = d.Embedding
	}
	vecs, err := toFloat32(ep, raw)
	return vecs, 0, err
}

// hideKey removes the key from a text a server sent back (some echo the
// request's headers in their errors).
func (h *HTTP) hideKey(s string) string {
	if len(h.Key) >= 4 {
		s = strings.ReplaceAll(s, h.Key, "<key>")
	}
	return s
}

// scrub replaces the raw URL in an error text by its redacted form.
func scrub(s, raw, ep string) string {
	if raw != "" {
		s = strings.ReplaceAll(s, raw, ep)
	}
	return s
}

// netReason is why a request found no server, in a few words.
func netReason(err error, raw, ep string) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return scrub(op.Err.Error(), raw, ep)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return scrub(ue.Err.Error(), raw, ep)
	}
	return scrub(err.Error(), raw, ep)
}

// errorMessage is the message of an error answer: OpenAI's
// {"error": {"message"}}, Ollama's {"error": "…"}, or the body's first line.
func errorMessage(data []byte) string {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &obj) == nil && len(obj.Error) > 0 {
		var s string
		if json.Unmarshal(obj.Error, &s) == nil {
			return firstLine(s)
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(obj.Error, &m) == nil && m.Message != "" {
			return firstLine(m.Message)
		}
	}
	return firstLine(string(data))
}

// retryAfter reads a Retry-After of seconds (dates are not worth it here).
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
