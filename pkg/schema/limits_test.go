package schema

import (
	"strings"
	"testing"
	"time"
)

func TestCheckArgs(t *testing.T) {
	nest := func(n int) string { return `{"path":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` }
	tests := []argsCase{
		{"flat", `{"path":"a.txt"}`, ""},
		{"at the limit", nest(MaxDepth), ""},
		{"one over", nest(MaxDepth + 1), "- root: Too deep: the arguments nest more than 512 levels"},
		{"200 000 levels", nest(200000), "- root: Too deep: the arguments nest more than 512 levels"},
		{"brackets in strings do not count", `{"path":"` + strings.Repeat("[{", 1000) + `"}`, ""},
		{"an escaped quote does not end the string", `{"path":"\"` + strings.Repeat("[", 1000) + `"}`, ""},
		{"an escaped backslash does not escape the quote", `{"path":"\\","x":` + strings.Repeat("[", 1000) + `}`, "- root: Too deep"},
		{"unbalanced closers", strings.Repeat("]", 10000), ""},
	}
	checkArgsCases(t, tests)
}

func TestCheckArgsSize(t *testing.T) {
	big := []byte(`{"content":"` + strings.Repeat("x", MaxArgsBytes) + `"}`)
	start := time.Now()
	err := CheckArgs("mastra_workspace_write_file", big)
	if err == nil {
		t.Fatal("over-size arguments accepted")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
	msg := err.Error()
	if !strings.Contains(msg, "- root: Too big: arguments over 67108864 bytes are not accepted") {
		t.Errorf("message: %q", msg)
	}
	if len(msg) > 1000 {
		t.Errorf("the echo is not bounded: %d bytes", len(msg))
	}
	if CheckArgs("t", big[:MaxArgsBytes]) != nil {
		t.Error("arguments at the limit refused")
	}
}

// TestEchoBounded: the "Provided arguments" echo of a failed validation
// costs the same and has the same length whatever the input's size, and is
// what the full echo would give once cut.
func TestEchoBounded(t *testing.T) {
	fields := []field{{name: "path", kind: kindString, required: true}}
	inputs := []string{
		`{"path":1,"x":"` + strings.Repeat("é", 1<<20) + `"}`,
		`{"path":[` + strings.Repeat(`"aaaaaaaaaa",`, 1<<17) + `1]}`,
		`{"path":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`,
		`{"path":{"a":{"b":"` + strings.Repeat(`\u0000\ud83d`, 1<<17) + `"}}}`,
	}
	for i, in := range inputs {
		v, err := parseJSValue([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got := truncateForLog(v.echo())
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("input %d: the echo took %v", i, d)
		}
		if want := truncateForLog(v.stringify()); got != want {
			t.Errorf("input %d: bounded echo\n%q\nwant\n%q", i, got, want)
		}
		if _, err := validate("t", fields, []byte(in)); err == nil || len(err.Error()) > 1000 {
			t.Errorf("input %d: validation error %v", i, err)
		}
	}
}

// TestCheckArgsUTF8: arguments that are not UTF-8 are refused, naming
// where the first stray byte is, rather than decoded with U+FFFD in place
// of each (which a write would then store); valid UTF-8, U+FFFD itself and
// escapes of any kind pass.
func TestCheckArgsUTF8(t *testing.T) {
	tests := []argsCase{
		{"ascii", `{"content":"abc"}`, ""},
		{"multi-byte text", `{"content":"héllo → 日本 👍"}`, ""},
		{"U+FFFD itself", "{\"content\":\"a\uFFFDb\"}", ""},
		{"an escaped lone surrogate", `{"content":"a\udc80b"}`, ""},
		{"a stray byte", "{\"content\":\"a\xffb\"}", "invalid JSON arguments for tool: not valid UTF-8 at byte offset 13 (JSON text must be UTF-8)"},
		{"latin-1 text", "{\"content\":\"caf\xe9\"}", "at byte offset 15"},
		{"a cut sequence", "{\"content\":\"\xe6\x97\"}", "at byte offset 12"},
		{"an encoded surrogate", "{\"content\":\"\xed\xa0\x80\"}", "at byte offset 12"},
		{"in a key", "{\"\xff\":1}", "at byte offset 2"},
	}
	checkArgsCases(t, tests)
}

// argsCase is raw arguments and what CheckArgs says of them: "" for
// accepted, else a piece of its error.
type argsCase struct{ name, raw, issue string }

func checkArgsCases(t *testing.T, tests []argsCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckArgs("tool", []byte(tt.raw))
			switch {
			case tt.issue == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.issue != "" && err == nil:
				t.Fatal("accepted")
			case tt.issue != "" && !strings.Contains(err.Error(), tt.issue):
				t.Fatalf("error %q does not say %q", err, tt.issue)
			}
		})
	}
}
