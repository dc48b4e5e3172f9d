package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/workspace"
)

// protocolVersions are the MCP revisions this server speaks, newest first.
// A client asking for one of them gets it; any other gets the newest.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Handler answers the JSON-RPC messages of one MCP session, whatever
// carries them: Serve hands it the lines of a stdio pair, ServeHTTP the
// bodies of one HTTP session's POSTs. It is safe for concurrent use,
// and requests are answered independently of each other (a cancellation
// notification stops the request it names).
type Handler struct {
	ws     *workspace.Workspace
	result initializeResult
	tools  []tool // by name
	known  map[string]bool

	mu       sync.Mutex
	version  string // the negotiated protocol version; "" before initialize
	ready    bool   // notifications/initialized received
	elicit   bool   // the client can ask its user (elicitation, form mode)
	inflight map[string]*running

	// Requests to the client (see ask.go).
	send       func(ctx context.Context, msg []byte) error
	asks       map[string]chan *reply // by id, waiting for the client's answer
	lastAsk    int64
	inputEnded bool

	// progressEvery is the interval of a call's progress notifications
	// (see progress.go); 0 or less: none.
	progressEvery time.Duration
}

// running is a request being answered, for notifications/cancelled.
type running struct {
	cancel    context.CancelFunc
	cancelled bool
}

// NewHandler builds the handler of a session offering ws's tools; version
// is ws's own, reported as the server's.
func NewHandler(ws *workspace.Workspace, version string) *Handler {
	h := &Handler{
		ws: ws,
		result: initializeResult{
			// The tool list is fixed for the session: listChanged is not
			// advertised.
			Capabilities: serverCapabilities{Logging: struct{}{}, Tools: toolsCapability{}},
			Instructions: ws.Instructions(),
			ServerInfo:   implementation{Name: "ws", Title: "ws workspace", Version: version},
		},
		known:    map[string]bool{},
		inflight: map[string]*running{},
		asks:     map[string]chan *reply{},

		progressEvery: DefaultProgressEvery,
	}
	h.tools = offeredTools(ws)
	for _, t := range h.tools {
		h.known[t.Name] = true
	}
	return h
}

// offeredTools are the workspace's offered tools as tools/list gives
// them, by name.
func offeredTools(ws *workspace.Workspace) []tool {
	// An array even when empty: MCP's tools/list result requires one
	// ("tools": null fails a client's check of the result).
	tools := []tool{}
	for _, o := range ws.Offered() {
		tools = append(tools, tool{
			Annotations: toolAnnotations{ReadOnlyHint: o.Spec.ReadOnly()},
			Description: o.Description(),
			InputSchema: o.Schema(),
			Name:        o.Name,
		})
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools
}

// ToolList is the result of tools/list for the workspace's tools (what
// ws tools --format mcp prints).
func ToolList(ws *workspace.Workspace) any {
	return struct {
		Tools []tool `json:"tools"`
	}{offeredTools(ws)}
}

// Handle answers one message: the response to a request, the array of
// responses to a batch, or nil when there is nothing to send (a
// notification, a response, a request cancelled by the client).
func (h *Handler) Handle(ctx context.Context, msg []byte) []byte {
	return h.accept(ctx, msg).answer()
}

// job is a received message made ready to answer: its requests are
// already registered, so a cancellation read after it finds them.
type job struct {
	h     *Handler
	batch bool
	items []jobItem
	// slow: the job runs a tool, and a transport should answer it
	// without holding up the messages that follow.
	slow bool
}

// jobItem is one message of a job: a call to run, or the response
// already decided (an invalid message).
type jobItem struct {
	c    *call
	ctx  context.Context
	run  *running
	resp *response
}

// accept decodes msg and registers its requests; answer runs them.
func (h *Handler) accept(ctx context.Context, msg []byte) *job {
	j := &job{h: h}
	msg = bytes.TrimSpace(msg)
	// A message too deep for encoding/json is read member by member: it
	// may be a call whose arguments nest too deeply, to be answered with
	// the validation failure like any other bad arguments.
	if !json.Valid(msg) && (!tooDeepForGo(msg) || !splitsDeep(msg)) {
		j.items = []jobItem{{resp: notJSON(msg)}}
		return j
	}
	raws := []json.RawMessage{msg}
	if msg[0] == '[' {
		j.batch = true
		raws, _ = arrayElements(msg)
		if len(raws) == 0 {
			j.batch = false
			j.items = []jobItem{{resp: errorResponse(nullID, errorf(codeInvalidRequest, "Invalid Request: empty batch"))}}
			return j
		}
	}
	for _, raw := range raws {
		c, resp := decodeMessage(raw)
		switch {
		case resp != nil:
			j.items = append(j.items, jobItem{resp: resp})
		case c == nil:
		case c.reply != nil:
			h.deliver(c)
		case c.id == nil:
			j.items = append(j.items, jobItem{c: c})
		default:
			j.items = append(j.items, h.register(ctx, c))
			j.slow = j.slow || c.method == "tools/call"
		}
	}
	return j
}

// calls counts the job's requests to run (not its notifications, nor the
// messages already answered with an error).
func (j *job) calls() int {
	n := 0
	for _, it := range j.items {
		if it.c != nil && it.c.id != nil {
			n++
		}
	}
	return n
}

// register gives a request its own context, which notifications/cancelled
// cancels.
func (h *Handler) register(ctx context.Context, c *call) jobItem {
	key := idKey(c.id)
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, busy := h.inflight[key]; busy {
		return jobItem{resp: errorResponse(c.id, errorf(codeInvalidRequest, "Invalid Request: request %s is already in progress", key))}
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &running{cancel: cancel}
	h.inflight[key] = r
	return jobItem{c: c, ctx: ctx, run: r}
}

// answer runs the job's calls and encodes the responses.
func (j *job) answer() []byte {
	var out []*response
	for _, it := range j.items {
		switch {
		case it.resp != nil:
			out = append(out, it.resp)
		case it.c.id == nil:
			j.h.notify(it.c)
		default:
			if r := j.h.respond(it); r != nil {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	var b []byte
	var err error
	if j.batch {
		b, err = jsonenc.Marshal(out)
	} else {
		b, err = jsonenc.Marshal(out[0])
	}
	if err != nil {
		b, _ = jsonenc.Marshal(errorResponse(nullID, errorf(codeInternalError, "Internal error: %v", err)))
	}
	return b
}

// respond runs one request; a request cancelled by the client gets no
// response, as MCP asks.
func (h *Handler) respond(it jobItem) *response {
	result, rerr := h.dispatch(it.ctx, it.c)
	h.mu.Lock()
	delete(h.inflight, idKey(it.c.id))
	cancelled := it.run.cancelled
	h.mu.Unlock()
	it.run.cancel()
	if cancelled {
		return nil
	}
	if rerr != nil {
		return errorResponse(it.c.id, rerr)
	}
	b, err := jsonenc.Marshal(result)
	if err != nil {
		return errorResponse(it.c.id, errorf(codeInternalError, "Internal error: %v", err))
	}
	return &response{JSONRPC: "2.0", ID: it.c.id, Result: json.RawMessage(b)}
}

// notify acts on a notification; unknown ones are ignored.
func (h *Handler) notify(c *call) {
	switch c.method {
	case "notifications/initialized":
		h.mu.Lock()
		h.ready = true
		h.mu.Unlock()
	case "notifications/cancelled":
		h.cancel(c.params)
	}
}

// negotiated is the protocol version agreed at initialize ("" before).
func (h *Handler) negotiated() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.version
}

// initialized reports whether the client sent notifications/initialized.
func (h *Handler) initialized() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ready
}

// cancel stops the request notifications/cancelled names.
func (h *Handler) cancel(params json.RawMessage) {
	if params == nil {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !validID(p.RequestID) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.inflight[idKey(p.RequestID)]; r != nil {
		r.cancelled = true
		r.cancel()
	}
}

// dispatch runs a request's method.
func (h *Handler) dispatch(ctx context.Context, c *call) (any, *rpcError) {
	switch c.method {
	case "initialize":
		return h.initialize(c.params)
	case "ping":
		return struct{}{}, nil
	}
	h.mu.Lock()
	ready := h.version != ""
	h.mu.Unlock()
	if !ready {
		return nil, errorf(codeInvalidRequest, "Invalid Request: method %q is invalid before initialize", c.method)
	}
	switch c.method {
	case "tools/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		if err := decodeParams(c.params, &p); err != nil {
			return nil, err
		}
		if p.Cursor != "" {
			return nil, errorf(codeInvalidParams, "Invalid params: unknown cursor %q", p.Cursor)
		}
		return struct {
			Tools []tool `json:"tools"`
		}{h.tools}, nil // ToolList's shape
	case "tools/call":
		return h.callTool(ctx, c.params)
	case "logging/setLevel":
		// ws sends no log messages; the level is checked and dropped.
		var p struct {
			Level string `json:"level"`
		}
		if err := decodeParams(c.params, &p); err != nil {
			return nil, err
		}
		if !isLogLevel(p.Level) {
			return nil, errorf(codeInvalidParams, "Invalid params: unknown logging level %q", p.Level)
		}
		return struct{}{}, nil
	// ws offers no resources or prompts; some clients list them anyway.
	case "resources/list":
		return struct {
			Resources []struct{} `json:"resources"`
		}{[]struct{}{}}, nil
	case "resources/templates/list":
		return struct {
			ResourceTemplates []struct{} `json:"resourceTemplates"`
		}{[]struct{}{}}, nil
	case "prompts/list":
		return struct {
			Prompts []struct{} `json:"prompts"`
		}{[]struct{}{}}, nil
	}
	return nil, errorf(codeMethodNotFound, "method not found: %q", c.method)
}

func decodeParams(params json.RawMessage, v any) *rpcError {
	if params == nil {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		if tooDeepForGo(params) {
			return errorf(codeInvalidParams, "Invalid params: the params nest more than %d levels", goMaxDepth)
		}
		return errorf(codeInvalidParams, "Invalid params: %s", mistyped(err))
	}
	return nil
}

// mistyped words a decoding error of a message's JSON (valid JSON of the
// wrong shape) in the protocol's terms: the member and the JSON type it
// needs, not the Go value it would have filled.
func mistyped(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "not the shape the method needs"
	}
	want := "a number"
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.Slice, reflect.Array:
		want = "an array"
	}
	if te.Field == "" {
		return fmt.Sprintf("must be %s, not %s", want, te.Value)
	}
	return fmt.Sprintf("%s must be %s, not %s", te.Field, want, te.Value)
}

// decodeRequired is decodeParams for a method that must have params.
func decodeRequired(method string, params json.RawMessage, v any) *rpcError {
	if params == nil {
		return errorf(codeInvalidParams, "Invalid params: %s needs params", method)
	}
	return decodeParams(params, v)
}

func isLogLevel(l string) bool {
	switch l {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return true
	}
	return false
}

// initialize negotiates the protocol version and describes the server.
func (h *Handler) initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := decodeRequired("initialize", params, &p); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.version != "" {
		return nil, errorf(codeInvalidRequest, "Invalid Request: initialize was already received")
	}
	h.elicit = canElicit(p.Capabilities)
	h.version = protocolVersions[0]
	for _, v := range protocolVersions {
		if v == p.ProtocolVersion {
			h.version = v
		}
	}
	res := h.result
	res.ProtocolVersion = h.version
	return res, nil
}

// callTool runs a tool. Unknown tools are a protocol error; a tool that
// fails gives an isError result carrying its message.
func (h *Handler) callTool(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if err := decodeRequired("tools/call", params, &p); err != nil {
		// Arguments nested too deeply for encoding/json are still
		// answered as arguments nested too deeply (by ws.Call).
		m, ok := objectMembers(params)
		if !ok || !tooDeepForGo(m["arguments"]) || json.Unmarshal(m["name"], &p.Name) != nil {
			return nil, err
		}
		p.Arguments, p.Meta = m["arguments"], m["_meta"]
	}
	if p.Name == "" {
		return nil, errorf(codeInvalidParams, "Invalid params: tools/call needs a name: the tool to call, as tools/list names it")
	}
	if !h.known[p.Name] {
		return nil, h.unknownTool(p.Name)
	}
	args := p.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	// A client that asked for progress hears that a long call still runs.
	stop := h.reportProgress(ctx, p.Name, progressToken(p.Meta))
	_, res, err := h.ws.Call(workspace.WithApprover(ctx, h.approver(ctx)), p.Name, args)
	stop()
	return toResult(h.ws.Base(), res, err), nil
}

// unknownTool is the protocol error for a tool the session does not offer,
// with the reason ws call gives when ws has that tool (the config switches
// it off, it is one of ws's own, the filesystem is read-only, the config
// names it otherwise…).
func (h *Handler) unknownTool(name string) *rpcError {
	msg := fmt.Sprintf("unknown tool %q", name)
	if _, err := h.ws.Lookup(name); err != nil {
		if why, ok := strings.CutPrefix(err.Error(), "tool not available: "+name+" ("); ok {
			msg += " (" + why
		}
	}
	return errorf(codeInvalidParams, "%s", msg)
}

// validBase64 reports whether s is standard base64 with padding and
// nothing else (no line breaks, which a decoder would skip).
func validBase64(s string) bool {
	if len(s)%4 != 0 || strings.ContainsAny(s, "\r\n") {
		return false
	}
	_, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, strings.NewReader(s)))
	return err == nil
}

// toResult turns a tool outcome into MCP content: the text, a media part
// for media, and the data as structured content; base is the workspace's,
// for the file URI of a resource.
func toResult(base string, res workspace.Result, err error) *callToolResult {
	// The text is the model's: bytes that are not UTF-8 become U+FFFD as
	// JavaScript's decoder makes them (one per maximal invalid sequence),
	// as ws call prints them, not one per byte as JSON encoding would.
	if err != nil {
		return &callToolResult{IsError: true, Content: []any{textContent{Type: "text", Text: js.DecodeUTF8([]byte(err.Error()))}}}
	}
	out := &callToolResult{Content: []any{textContent{Type: "text", Text: js.DecodeUTF8([]byte(res.Text()))}}}
	if r, ok := res.(*workspace.ReadResult); ok && r.IsMedia() {
		// The read's data is the file in standard base64 already: it is
		// checked as it is, without a decoded copy of up to 10 MiB and a
		// second encoding of it.
		if blob := r.Data; validBase64(blob) {
			if strings.HasPrefix(r.MediaType, "image/") {
				out.Content = append(out.Content, imageContent{Type: "image", MIMEType: r.MediaType, Data: blob})
			} else {
				out.Content = append(out.Content, embeddedResource{Type: "resource", Resource: blobResource{
					URI: fileURI(base, string(r.Path)), MIMEType: r.MediaType, Blob: blob}})
			}
		}
		return out
	}
	if m, ok := res.(workspace.Media); ok {
		// Images beside the text (a notebook's plots), each after a line
		// that says whose it is.
		parts, note := m.Media()
		for _, p := range parts {
			if validBase64(p.Base64) {
				out.Content = append(out.Content, textContent{Type: "text", Text: p.Label + " (" + p.MediaType + "):"},
					imageContent{Type: "image", MIMEType: p.MediaType, Data: p.Base64})
			}
		}
		if note != "" {
			out.Content = append(out.Content, textContent{Type: "text", Text: note})
		}
	}
	if b, merr := jsonenc.Marshal(res); merr == nil && len(b) > 0 && b[0] == '{' {
		out.StructuredContent = json.RawMessage(b)
	}
	return out
}

// fileURI is the file URI of path (relative to base, or absolute): the
// absolute path, with what a URI cannot hold as it is (space, '#', '%',
// bytes that are not ASCII) escaped.
func fileURI(base, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
