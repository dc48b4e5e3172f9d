package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/search"
	"github.com/wstools/ws/pkg/upload"
)

// Defaults of the tool settings.
const (
	DefaultWriteLockMs   = 30000
	DefaultMaxMediaBytes = 10 * 1024 * 1024
)

// ToolKey is a tool a config may configure under "tools": its id, and
// whether it takes read_file's media settings. The list comes from the
// tool table (workspace.ConfigKeys). A Fixed tool (a skill tool) is not
// configured there, as in Mastra, but its name is taken when skills are.
type ToolKey struct {
	ID    string
	Media bool
	Fixed bool
	// WSOnly: one of ws's own tools, offered only with tools.wsTools, so
	// its name is taken only then.
	WSOnly bool
}

// DefaultMediaTypes are the MIME types read_file returns as media parts
// unless the config says otherwise.
var DefaultMediaTypes = []string{"image/png", "image/jpeg", "image/webp", "application/pdf"}

// Config is the whole configuration. The zero value is the default.
type Config struct {
	Filesystem Filesystem
	Sandbox    Sandbox
	Tools      Tools
	BM25       bool
	// BM25Params are the bm25 settings (k1, b, tokenize); Mastra's
	// defaults unless the config gives bm25 as an object.
	BM25Params     search.Params
	AutoIndexPaths []string
	Skills         []string
	Upload         Upload
	// ID and Name identify the workspace ("": derived from the root).
	ID, Name string
	// Embedder turns texts into vectors for vector and hybrid search; nil:
	// none configured.
	Embedder *Embedder
	// SearchIndexName names the vector index ("": from the id).
	SearchIndexName string
}

// Embedder holds embedder.* settings: an OpenAI-compatible endpoint (URL)
// or a command, never both.
type Embedder struct {
	URL       string
	Command   []string
	Model     string
	APIKeyEnv string // the environment variable holding the key; the key itself is never stored
	// MaxBatchSize, TimeoutMs, MaxRetries, Dimensions: 0 means the default
	// (Dimensions 0: whatever the model gives).
	MaxBatchSize int
	TimeoutMs    int
	MaxRetries   *int
	Dimensions   int
}

// Filesystem holds filesystem.* settings.
type Filesystem struct {
	Contained    bool // default true
	AllowedPaths []string
	ReadOnly     bool
}

// Sandbox holds sandbox.* settings. Disabled is `"sandbox": false`.
type Sandbox struct {
	Disabled bool
	Env      map[string]string
	Timeout  *float64 // seconds; nil = ws default
	// BackgroundTimeout bounds background commands (seconds); nil: none,
	// they run until they exit or are killed.
	BackgroundTimeout *float64
	Isolation         string // "none", "bwrap" or "landlock"
	InheritEnv        bool
	NativeSandbox     NativeSandbox
	// BackgroundOutputBytes caps the output kept per stream of a background
	// process (the newest part is kept); 0 means the default, 64 MiB.
	BackgroundOutputBytes int64
	// BackgroundProcesses are Mastra's backgroundProcesses callbacks, as
	// commands (nil: none).
	BackgroundProcesses BackgroundCallbacks
}

// BackgroundCallbacks holds sandbox.backgroundProcesses.*: commands run
// for each output chunk of a background process and when it exits.
type BackgroundCallbacks struct {
	OnStdout, OnStderr, OnExit []string
}

// NativeSandbox holds sandbox.nativeSandbox.* settings.
type NativeSandbox struct {
	AllowNetwork   bool
	ReadWritePaths []string
	ReadOnlyPaths  []string
}

// Tools holds tools.* settings: the global switches and one entry per tool.
type Tools struct {
	Enabled            bool // default true
	RequireApproval    bool
	WriteLockTimeoutMs int
	BeforeToolCall     []string
	AfterToolCall      []string
	// HookTimeout bounds one hook command (seconds); nil: the default,
	// 30 s; 0: no limit.
	HookTimeout *float64
	// WSTools offers ws's own tools (those Mastra does not have) to models
	// through call, tools and mcp; their subcommands exist regardless.
	WSTools bool
	// OperationTimeoutMs bounds every tool call (0: none); a call that
	// takes longer fails with TIMEOUT.
	OperationTimeoutMs int
	PerTool            map[string]Tool
}

// Tool is the configuration of one tool. Nil pointers mean "not set".
type Tool struct {
	Enabled                *bool
	Name                   string
	RequireApproval        *bool
	RequireReadBeforeWrite *bool
	MaxOutputTokens        *int
	MediaTypes             []string // nil: default; empty: none
	MaxMediaBytes          *int64
}

// Default returns the configuration used when no file is given.
func Default() *Config {
	return &Config{
		Filesystem: Filesystem{Contained: true},
		Sandbox:    Sandbox{Isolation: "none"},
		Tools:      Tools{Enabled: true, WriteLockTimeoutMs: DefaultWriteLockMs, PerTool: map[string]Tool{}},
		BM25Params: search.DefaultParams(),
	}
}

// Tool returns the settings of one tool id (zero when none are configured).
func (c *Config) Tool(id string) Tool { return c.Tools.PerTool[id] }

// ToolEnabled reports whether a tool is switched on by the config.
func (c *Config) ToolEnabled(id string) bool {
	if t := c.Tools.PerTool[id]; t.Enabled != nil {
		return *t.Enabled
	}
	return c.Tools.Enabled
}

// MediaTypes returns a tool's media type patterns (read_file's).
func (c *Config) MediaTypes(id string) []string {
	if t := c.Tools.PerTool[id]; t.MediaTypes != nil {
		return t.MediaTypes
	}
	return DefaultMediaTypes
}

// MaxMediaBytes returns a tool's media size cap (read_file's).
func (c *Config) MaxMediaBytes(id string) int64 {
	if t := c.Tools.PerTool[id]; t.MaxMediaBytes != nil {
		return *t.MaxMediaBytes
	}
	return DefaultMaxMediaBytes
}

// MaxOutputTokens returns a tool's token cap, or def when not configured.
func (c *Config) MaxOutputTokens(id string, def int) int {
	if t := c.Tools.PerTool[id]; t.MaxOutputTokens != nil {
		return *t.MaxOutputTokens
	}
	return def
}

// RequireReadBeforeWrite reports the read-before-write policy of a tool.
func (c *Config) RequireReadBeforeWrite(id string) bool {
	if t := c.Tools.PerTool[id]; t.RequireReadBeforeWrite != nil {
		return *t.RequireReadBeforeWrite
	}
	return false
}

// Error is a configuration problem; Key is the dotted path of the key.
type Error struct {
	File string
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	where := "config"
	if e.File != "" {
		where = "config " + e.File
	}
	if e.Key == "" {
		return where + ": " + e.Msg
	}
	return where + ": " + e.Key + ": " + e.Msg
}

// Load reads and checks the config file at path; tools are the tool keys
// it may hold.
func Load(path string, tools []ToolKey) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read: " + errs.Errno(err)}
	}
	c, err := Parse(data, tools)
	if e, ok := err.(*Error); ok {
		e.File = path
	}
	return c, err
}

// Parse checks and decodes a config document; tools are the tool keys it
// may hold.
func Parse(data []byte, tools []ToolKey) (*Config, error) {
	// A byte order mark, as some editors save UTF-8, is not JSON but says
	// nothing: taken off.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err == io.EOF {
		return nil, &Error{Msg: "empty (a config is a JSON object, at least {})"}
	} else if err != nil {
		return nil, &Error{Msg: "invalid JSON" + where(data, err) + ": " + err.Error() + commentHint(data, err)}
	}
	if dec.More() {
		return nil, &Error{Msg: "invalid JSON: trailing data after the top-level object"}
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, &Error{Msg: "expected a JSON object at the top level, got " + kind(raw)}
	}
	if k := duplicateKey(data); k != "" {
		// JSON lets the last one win without a word: a pasted block
		// would undo an earlier setting unseen.
		return nil, &Error{Key: k, Msg: "given twice in its object (keep one)"}
	}
	c := Default()
	p := parser{toolKeys: tools}
	p.object("", top, map[string]func(string, any){
		"filesystem":     func(k string, v any) { p.filesystem(k, v, &c.Filesystem) },
		"sandbox":        func(k string, v any) { p.sandbox(k, v, &c.Sandbox) },
		"tools":          func(k string, v any) { p.tools(k, v, &c.Tools) },
		"bm25":           func(k string, v any) { c.BM25 = p.bm25(k, v, &c.BM25Params) },
		"autoIndexPaths": func(k string, v any) { c.AutoIndexPaths = p.strings(k, v) },
		"skills":         func(k string, v any) { c.Skills = p.strings(k, v) },
		"upload":         func(k string, v any) { p.upload(k, v, &c.Upload) },
		"id":             func(k string, v any) { c.ID = p.nonEmpty(k, v) },
		// Mastra's spelling, at the top level.
		"operationTimeout": func(k string, v any) {
			if n, ok := p.millis(k, v); ok {
				c.Tools.OperationTimeoutMs = n
			}
		},
		"name":     func(k string, v any) { c.Name = p.nonEmpty(k, v) },
		"embedder": func(k string, v any) { c.Embedder = p.embedder(k, v) },
		"searchIndexName": func(k string, v any) {
			c.SearchIndexName = p.str(k, v)
			if p.err == nil {
				if err := CheckIndexName(c.SearchIndexName); err != nil {
					p.fail(k, "%v", err)
				}
			}
		},
	})
	if p.err != nil {
		return nil, p.err
	}
	if err := checkNames(c, tools); err != nil {
		return nil, err
	}
	return c, nil
}

// where is " at line L, column C" for a JSON syntax error in data (a
// stray comma in a long config is found by its place), or "".
func where(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 {
		return ""
	}
	// Offset counts the bytes read when the error was found: the bad
	// character is the last of them.
	before := data[:min(se.Offset-1, int64(len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf(" at line %d, column %d", line, col)
}

// commentHint is a note for a syntax error at the start of a comment (a
// JSONC file, or options pasted from TypeScript, has them), or "".
func commentHint(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 || se.Offset >= int64(len(data)) {
		return ""
	}
	// Offset counts the bytes read: the bad character is the last.
	if c := data[se.Offset-1 : se.Offset+1]; string(c) != "//" && string(c) != "/*" {
		return ""
	}
	return " (JSON has no comments: remove the // and /* */ ones)"
}

// checkNames refuses two tools exposed under one name, as Mastra does.
func checkNames(c *Config, tools []ToolKey) error {
	exposed := map[string]string{}
	for _, k := range tools {
		if k.Fixed && len(c.Skills) > 0 {
			exposed[k.ID] = k.ID
		}
	}
	for _, k := range tools {
		id := k.ID
		if k.Fixed || !c.ToolEnabled(id) || k.WSOnly && !c.Tools.WSTools {
			continue
		}
		name := id
		if t := c.Tools.PerTool[id]; t.Name != "" {
			name = t.Name
		}
		if first, dup := exposed[name]; dup {
			// The key blamed is the name the config gave: this tool's,
			// or, when this one keeps its own id, the earlier tool's
			// that was renamed to it.
			key := id
			if c.Tools.PerTool[id].Name == "" && c.Tools.PerTool[first].Name != "" {
				key = first
			}
			return &Error{Key: "tools." + key + ".name", Msg: fmt.Sprintf(
				"Duplicate workspace tool name \"%s\": tool \"%s\" conflicts with an already-registered tool. Check your tools config for duplicate \"name\" values.",
				name, id)}
		}
		exposed[name] = id
	}
	return nil
}

type parser struct {
	toolKeys []ToolKey
	err      error
}

// duplicateKey returns the path of the first key that an object of the
// JSON document data (valid JSON) holds twice, as the errors name keys, or
// "" when there is none.
func duplicateKey(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var value func(path string) string
	value = func(path string) string {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				t, err := dec.Token()
				k, ok := t.(string)
				if err != nil || !ok {
					return ""
				}
				if seen[k] {
					return join(path, k)
				}
				seen[k] = true
				if d := value(join(path, k)); d != "" {
					return d
				}
			}
			dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d := value(fmt.Sprintf("%s[%d]", path, i)); d != "" {
					return d
				}
			}
			dec.Token()
		}
		return ""
	}
	return value("")
}

func (p *parser) fail(key, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// object walks the keys of m in sorted order (so the first error reported
// does not depend on map order) and hands each to its handler.
func (p *parser) object(prefix string, m map[string]any, fields map[string]func(string, any)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h, ok := fields[k]
		if !ok {
			known := make([]string, 0, len(fields))
			for f := range fields {
				known = append(known, f)
			}
			sort.Strings(known)
			if s := wording.Closest(k, known); s != "" {
				p.fail(join(prefix, k), "unknown key (did you mean %q? known keys here: %s)", s, strings.Join(known, ", "))
				return
			}
			p.fail(join(prefix, k), "unknown key (known keys here: %s)", strings.Join(known, ", "))
			return
		}
		h(join(prefix, k), m[k])
		if p.err != nil {
			return
		}
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (p *parser) obj(key string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(key, "expected an object, got %s", kind(v))
	}
	return m
}

func (p *parser) bool(key string, v any) bool {
	b, ok := v.(bool)
	if !ok {
		p.fail(key, "expected a boolean, got %s", kind(v))
	}
	return b
}

func (p *parser) boolPtr(key string, v any) *bool {
	b := p.bool(key, v)
	return &b
}

func (p *parser) str(key string, v any) string {
	s, ok := v.(string)
	if !ok {
		p.fail(key, "expected a string, got %s", kind(v))
	}
	if strings.IndexByte(s, 0) >= 0 {
		// No setting can hold one: a path, a command, a variable or a
		// name with a NUL byte fails only later, with the kernel's EINVAL.
		p.fail(key, `holds a NUL byte (\u0000), which no path, command, environment variable or name can`)
	}
	return s
}

func (p *parser) strings(key string, v any) []string {
	a, ok := v.([]any)
	if !ok {
		p.fail(key, "expected an array of strings, got %s", kind(v))
		return nil
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		out = append(out, p.str(fmt.Sprintf("%s[%d]", key, i), e))
	}
	return out
}

// number accepts a JSON number (and null, which means "not set": ok false).
func (p *parser) number(key string, v any) (float64, bool) {
	if v == nil {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		p.fail(key, "expected a number, got %s", kind(v))
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		p.fail(key, "number out of range: %s", n)
		return 0, false
	}
	return f, true
}

func (p *parser) nonNegInt(key string, v any) (int64, bool) {
	f, ok := p.number(key, v)
	if !ok {
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt32*1e6 {
		p.fail(key, "expected a non-negative integer, got %v", v)
		return 0, false
	}
	return int64(f), true
}

// MaxMillis is the longest duration in milliseconds that a setting can
// give (a time.Duration's range, about 292 years).
const MaxMillis = math.MaxInt64 / 1000000

// millis reads a non-negative whole number of milliseconds; a larger one
// than a duration holds means "that long", not an overflow into an
// instant timeout.
func (p *parser) millis(key string, v any) (int, bool) {
	n, ok := p.nonNegInt(key, v)
	return int(min(n, int64(MaxMillis))), ok
}

func (p *parser) filesystem(key string, v any, fs *Filesystem) {
	m := p.obj(key, v)
	p.object(key, m, map[string]func(string, any){
		"contained":    func(k string, v any) { fs.Contained = p.bool(k, v) },
		"allowedPaths": func(k string, v any) { fs.AllowedPaths = p.strings(k, v) },
		"readOnly":     func(k string, v any) { fs.ReadOnly = p.bool(k, v) },
		"basePath": func(k string, v any) {
			p.fail(k, "set the workspace root with --root or WS_ROOT, not in the config")
		},
	})
}

func (p *parser) sandbox(key string, v any, s *Sandbox) {
	if b, ok := v.(bool); ok {
		s.Disabled = !b
		return
	}
	m := p.obj(key, v)
	p.object(key, m, map[string]func(string, any){
		"env": func(k string, v any) {
			env := p.obj(k, v)
			s.Env = map[string]string{}
			names := make([]string, 0, len(env))
			for name := range env {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				switch {
				case name == "":
					p.fail(k, "a variable name cannot be empty")
				case strings.ContainsAny(name, "=\x00"):
					// "A=B": "1" would set A to "B=1".
					p.fail(k, "%q: a variable name cannot hold '=' or a NUL byte", name)
				}
				s.Env[name] = p.str(join(k, name), env[name])
			}
		},
		"timeout": func(k string, v any) {
			if f, ok := p.number(k, v); ok {
				if f < 0 {
					p.fail(k, "expected a non-negative number of seconds, got %v", v)
				}
				s.Timeout = &f
			}
		},
		"backgroundTimeout": func(k string, v any) {
			if f, ok := p.number(k, v); ok {
				if f < 0 {
					p.fail(k, "expected a non-negative number of seconds, got %v", v)
				}
				s.BackgroundTimeout = &f
			}
		},
		"isolation": func(k string, v any) {
			s.Isolation = p.str(k, v)
			if p.err == nil && !slices.Contains([]string{"none", "bwrap", "landlock"}, s.Isolation) {
				p.fail(k, `expected "none", "bwrap" or "landlock", got %q`, s.Isolation)
			}
		},
		"inheritEnv": func(k string, v any) { s.InheritEnv = p.bool(k, v) },
		"backgroundProcesses": func(k string, v any) {
			b := &s.BackgroundProcesses
			p.object(k, p.obj(k, v), map[string]func(string, any){
				"onStdout": func(k string, v any) { b.OnStdout = p.command(k, v) },
				"onStderr": func(k string, v any) { b.OnStderr = p.command(k, v) },
				"onExit":   func(k string, v any) { b.OnExit = p.command(k, v) },
				"abortSignal": func(k string, v any) {
					p.fail(k, "background processes outlive ws; stop one with ws kill")
				},
			})
		},
		"backgroundOutputBytes": func(k string, v any) {
			if n, ok := p.nonNegInt(k, v); ok {
				s.BackgroundOutputBytes = n
			}
		},
		"workingDirectory": func(k string, v any) {
			p.fail(k, "the sandbox works in the workspace root; set it with --root or WS_ROOT")
		},
		"nativeSandbox": func(k string, v any) {
			p.object(k, p.obj(k, v), map[string]func(string, any){
				"allowNetwork":   func(k string, v any) { s.NativeSandbox.AllowNetwork = p.bool(k, v) },
				"readWritePaths": func(k string, v any) { s.NativeSandbox.ReadWritePaths = p.strings(k, v) },
				"readOnlyPaths":  func(k string, v any) { s.NativeSandbox.ReadOnlyPaths = p.strings(k, v) },
			})
		},
	})
}

// bm25 reads Mastra's three forms: true, {k1, b}, and {bm25: {k1, b},
// tokenize: {…}}. Like Mastra, an object with a bm25 or tokenize key is the
// nested form; k1 or b beside them, which Mastra would ignore, is refused.
func (p *parser) bm25(key string, v any, out *search.Params) bool {
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		_, nested := x["bm25"]
		if _, ok := x["tokenize"]; ok {
			nested = true
		}
		if !nested {
			p.bm25Numbers(key, x, out)
			return true
		}
		var opts search.TokenizeOptions
		p.object(key, x, map[string]func(string, any){
			"bm25":     func(k string, v any) { p.bm25Numbers(k, p.obj(k, v), out) },
			"tokenize": func(k string, v any) { p.tokenize(k, p.obj(k, v), &opts) },
			"k1": func(k string, v any) {
				p.fail(k, "with bm25.bm25 or bm25.tokenize given, k1 and b go inside bm25.bm25")
			},
			"b": func(k string, v any) {
				p.fail(k, "with bm25.bm25 or bm25.tokenize given, k1 and b go inside bm25.bm25")
			},
		})
		if p.err == nil {
			tok, err := search.NewTokenizer(opts)
			if err != nil {
				p.fail(join(key, "tokenize.splitPattern"), "%v", err)
			}
			out.Tok = tok
		}
		return true
	}
	p.fail(key, "expected a boolean or an object, got %s", kind(v))
	return false
}

func (p *parser) bm25Numbers(key string, m map[string]any, out *search.Params) {
	p.object(key, m, map[string]func(string, any){
		// Outside these ranges BM25's scores turn negative or zero, and
		// search finds nothing (Mastra takes them and does so).
		"k1": func(k string, v any) {
			if out.K1 = p.finite(k, v); p.err == nil && out.K1 < 0 {
				p.fail(k, "expected a number ≥ 0 (term frequency saturation; Mastra's default is 1.5), got %v", v)
			}
		},
		"b": func(k string, v any) {
			if out.B = p.finite(k, v); p.err == nil && (out.B < 0 || out.B > 1) {
				p.fail(k, "expected a number from 0 to 1 (document length normalisation; Mastra's default is 0.75), got %v", v)
			}
		},
	})
}

func (p *parser) finite(key string, v any) float64 {
	if v == nil {
		p.fail(key, "expected a number, got null")
		return 0
	}
	f, _ := p.number(key, v)
	return f
}

func (p *parser) tokenize(key string, m map[string]any, o *search.TokenizeOptions) {
	p.object(key, m, map[string]func(string, any){
		"lowercase":         func(k string, v any) { o.Lowercase = p.boolPtr(k, v) },
		"removePunctuation": func(k string, v any) { o.RemovePunctuation = p.boolPtr(k, v) },
		"minLength": func(k string, v any) {
			f := p.finite(k, v)
			o.MinLength = &f
		},
		"stopwords": func(k string, v any) { o.Stopwords = p.strings(k, v) },
		"splitPattern": func(k string, v any) {
			s := p.str(k, v)
			o.SplitPattern = &s
		},
		"tokenizer": func(k string, v any) {
			p.fail(k, "a custom tokenizer is a JavaScript function, which a JSON config cannot hold; use lowercase, removePunctuation, minLength, stopwords and splitPattern")
		},
	})
}

// seconds reads a non-negative number of seconds.
func (p *parser) seconds(key string, v any) *float64 {
	f, ok := p.number(key, v)
	if !ok {
		return nil
	}
	if f < 0 {
		p.fail(key, "expected a non-negative number of seconds, got %v", v)
	}
	return &f
}

func (p *parser) command(key string, v any) []string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(p.str(key, x)) == "" {
			p.fail(key, "expected a command, got an empty string")
		}
		return []string{"/bin/sh", "-c", x}
	case []any:
		cmd := p.strings(key, x)
		switch {
		case p.err != nil:
		case len(cmd) == 0:
			p.fail(key, "expected a command (an array of program and arguments), got an empty array")
		case strings.TrimSpace(cmd[0]) == "":
			p.fail(key+"[0]", "expected a program, got %q", cmd[0])
		}
		return cmd
	}
	p.fail(key, "expected a command (a string for /bin/sh -c, or an array of program and arguments), got %s", kind(v))
	return nil
}

func (p *parser) tools(key string, v any, t *Tools) {
	m := p.obj(key, v)
	fields := map[string]func(string, any){
		"enabled":         func(k string, v any) { t.Enabled = p.bool(k, v) },
		"requireApproval": func(k string, v any) { t.RequireApproval = p.bool(k, v) },
		"writeLockTimeoutMs": func(k string, v any) {
			if n, ok := p.millis(k, v); ok {
				t.WriteLockTimeoutMs = n
			}
		},
		"wsTools": func(k string, v any) { t.WSTools = p.bool(k, v) },
		"operationTimeout": func(k string, v any) {
			if n, ok := p.millis(k, v); ok {
				t.OperationTimeoutMs = n
			}
		},
		"hooks": func(k string, v any) {
			p.object(k, p.obj(k, v), map[string]func(string, any){
				"beforeToolCall": func(k string, v any) { t.BeforeToolCall = p.command(k, v) },
				"afterToolCall":  func(k string, v any) { t.AfterToolCall = p.command(k, v) },
				"timeout":        func(k string, v any) { t.HookTimeout = p.seconds(k, v) },
			})
		},
	}
	// Mastra's AST tool (registered only where @ast-grep/napi is
	// installed): a Mastra config may configure it, and "unknown key"
	// would not say why it cannot be.
	fields["mastra_workspace_ast_edit"] = func(k string, v any) {
		p.fail(k, "ws has no AST editing tool (Mastra offers it only with @ast-grep/napi installed); remove this key (edit_file, multi_edit and apply_patch edit text)")
	}
	for _, tk := range p.toolKeys {
		fields[tk.ID] = func(k string, v any) { t.PerTool[tk.ID] = p.tool(k, tk, v) }
		if tk.Fixed {
			fields[tk.ID] = func(k string, v any) {
				p.fail(k, "the skill tools are not workspace tools: the tools config does not apply to them (as in Mastra)")
			}
		}
	}
	p.object(key, m, fields)
}

// Patterns are compiled on first use: most runs never read a config.
var mediaPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:\*|\*/\*|[a-z0-9!#$&^_.+-]+/(?:\*|[a-z0-9!#$&^_.+-]+))$`)
})

func (p *parser) tool(key string, tk ToolKey, v any) Tool {
	var t Tool
	fields := map[string]func(string, any){
		"enabled":                func(k string, v any) { t.Enabled = p.boolPtr(k, v) },
		"name":                   func(k string, v any) { t.Name = p.toolName(k, v) },
		"requireApproval":        func(k string, v any) { t.RequireApproval = p.boolPtr(k, v) },
		"requireReadBeforeWrite": func(k string, v any) { t.RequireReadBeforeWrite = p.boolPtr(k, v) },
		"maxOutputTokens": func(k string, v any) {
			if n, ok := p.nonNegInt(k, v); ok {
				if n == 0 {
					// Mastra takes 0 and answers every call with its
					// truncation notice alone; 0 is not "no limit".
					p.fail(k, "expected at least 1 (0 would cut every output to nothing; for a higher cap give a larger number)")
				}
				i := int(n)
				t.MaxOutputTokens = &i
			}
		},
	}
	if tk.Media {
		fields["mediaTypes"] = func(k string, v any) {
			if b, ok := v.(bool); ok && !b {
				t.MediaTypes = []string{}
				return
			}
			if _, ok := v.([]any); !ok {
				p.fail(k, "expected an array of MIME type patterns or false, got %s", kind(v))
				return
			}
			t.MediaTypes = p.strings(k, v)
			for _, pat := range t.MediaTypes {
				if p.err == nil && !mediaPattern().MatchString(pat) {
					js, _ := json.Marshal(pat)
					p.fail(k, "Invalid `mediaTypes` pattern: %s. Expected `*`, `*/*`, `type/*`, or a full mime type like `application/pdf`.", js)
				}
			}
		}
		fields["maxMediaBytes"] = func(k string, v any) {
			if n, ok := p.nonNegInt(k, v); ok {
				t.MaxMediaBytes = &n
			}
		}
	}
	m := p.obj(key, v)
	if _, ok := m["background"]; ok {
		// A Mastra config may carry it; "unknown key" would not say why.
		p.fail(join(key, "background"), "this key is for Mastra's agent background tasks (the agent loop runs a tool call later); ws has no agent loop, so remove it (a command runs in the background with execute_command's background parameter, ws exec --background)")
	}
	p.object(key, m, fields)
	return t
}

var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

func (p *parser) toolName(key string, v any) string {
	s := p.str(key, v)
	if p.err == nil && !toolNamePattern().MatchString(s) {
		p.fail(key, "a tool name must be 1-64 letters, digits, '_' or '-' (function-calling APIs accept no others), got %q", s)
	}
	return s
}

// Upload holds upload.* settings (`ws upload`, Mastra's FileUploadProcessor
// options). Patterns and sizes keep the syntax of the upload flags and are
// checked here; the commands get a file's FileUploadFileInfo as JSON on
// stdin: filterCommand answers true or false, maxSizeCommand a number of
// bytes.
type Upload struct {
	Include        []string // --include patterns
	Exclude        []string // --exclude patterns
	MaxSize        []string // --max-size values: SIZE or PATTERN=SIZE
	FilterCommand  []string
	MaxSizeCommand []string
	// CommandTimeout bounds one filter or size command (seconds); nil:
	// the default, 30 s; 0: no limit.
	CommandTimeout *float64
}

func (p *parser) upload(key string, v any, u *Upload) {
	patterns := func(k string, v any) []string {
		list := p.strings(k, v)
		if _, err := upload.ParsePatterns(list); p.err == nil && err != nil {
			p.fail(k, "%v", err)
		}
		return list
	}
	p.object(key, p.obj(key, v), map[string]func(string, any){
		"include": func(k string, v any) { u.Include = patterns(k, v) },
		"exclude": func(k string, v any) { u.Exclude = patterns(k, v) },
		"maxSize": func(k string, v any) {
			switch x := v.(type) {
			case json.Number:
				if n, ok := p.nonNegInt(k, x); ok {
					u.MaxSize = []string{fmt.Sprint(n)}
				}
				return
			case string:
				u.MaxSize = []string{x}
			case []any:
				u.MaxSize = p.strings(k, v)
			default:
				p.fail(k, `expected a number of bytes, a size such as "10MiB", or an array of sizes and PATTERN=SIZE rules, got %s`, kind(v))
				return
			}
			if _, err := upload.ParseLimits(u.MaxSize); p.err == nil && err != nil {
				p.fail(k, "%v", err)
			}
		},
		"filterCommand":  func(k string, v any) { u.FilterCommand = p.command(k, v) },
		"maxSizeCommand": func(k string, v any) { u.MaxSizeCommand = p.command(k, v) },
		"commandTimeout": func(k string, v any) { u.CommandTimeout = p.seconds(k, v) },
	})
	if p.err == nil && u.MaxSize != nil && u.MaxSizeCommand != nil {
		p.fail(key, "give maxSize or maxSizeCommand, not both")
	}
}

// nonEmpty is a string that must hold something.
func (p *parser) nonEmpty(key string, v any) string {
	s := p.str(key, v)
	if p.err == nil && strings.TrimSpace(s) == "" {
		p.fail(key, "expected a non-empty string")
	}
	if p.err == nil && strings.IndexFunc(s, unicode.IsControl) >= 0 {
		// A name is shown on one line (ws info) and sent in headers.
		p.fail(key, "expected a string without control characters (newlines, tabs …), got %q", s)
	}
	return s
}

var indexNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`) })

// CheckIndexName applies Mastra's rule for searchIndexName: an SQL
// identifier of at most 63 characters.
func CheckIndexName(name string) error {
	if !indexNamePattern().MatchString(name) {
		return fmt.Errorf("Invalid searchIndexName: %q. Must start with a letter or underscore, and contain only letters, numbers, or underscores.", name)
	}
	if len(name) > 63 {
		return fmt.Errorf("searchIndexName exceeds 63 characters (got %d)", len(name))
	}
	return nil
}

func (p *parser) embedder(key string, v any) *Embedder {
	e := &Embedder{}
	count := func(k string, v any, dst *int) {
		if n, ok := p.nonNegInt(k, v); ok {
			*dst = int(n)
		}
	}
	p.object(key, p.obj(key, v), map[string]func(string, any){
		"url": func(k string, v any) {
			e.URL = p.str(k, v)
			if p.err == nil && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
				p.fail(k, "expected an http:// or https:// URL of an embeddings endpoint, such as http://127.0.0.1:11434/v1/embeddings")
			}
		},
		"command":      func(k string, v any) { e.Command = p.command(k, v) },
		"model":        func(k string, v any) { e.Model = p.nonEmpty(k, v) },
		"apiKeyEnv":    func(k string, v any) { e.APIKeyEnv = p.nonEmpty(k, v) },
		"maxBatchSize": func(k string, v any) { count(k, v, &e.MaxBatchSize) },
		"timeoutMs": func(k string, v any) {
			if n, ok := p.millis(k, v); ok {
				e.TimeoutMs = n
			}
		},
		"dimensions": func(k string, v any) { count(k, v, &e.Dimensions) },
		"maxRetries": func(k string, v any) {
			n := 0
			count(k, v, &n)
			e.MaxRetries = &n
		},
	})
	switch {
	case p.err != nil:
	case e.URL == "" && e.Command == nil:
		p.fail(key, `give "url" (an OpenAI-compatible embeddings endpoint) or "command"`)
	case e.URL != "" && e.Command != nil:
		p.fail(key, `give "url" or "command", not both`)
	case e.URL != "" && e.Model == "":
		p.fail(key+".model", "the endpoint needs a model name, such as \"nomic-embed-text\"")
	case e.Command != nil && e.APIKeyEnv != "":
		p.fail(key+".apiKeyEnv", "only an endpoint (url) takes an API key; a command reads its own environment")
	}
	return e
}
