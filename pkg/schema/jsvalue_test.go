package schema

import (
	"strings"
	"testing"
)

func TestJSStringify(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":[1,{"b":null}],"c":"x","e":{},"f":[]}`, "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": \"x\",\n  \"e\": {},\n  \"f\": []\n}"},
		{`1.50`, "1.5"}, {`1e2`, "100"}, {`-0`, "0"}, {`1E-7`, "1e-7"}, {`0.1`, "0.1"}, {`1e21`, "1e+21"},
		{`12345678901234567890`, "12345678901234567000"}, {`0.000001`, "0.000001"}, {`123e-20`, "1.23e-18"},
		{`"héllo → 日本 👍"`, `"héllo → 日本 👍"`},
		{`"a\u0000\u001f\b\t\n\f\r\"\\\u007f\u2028"`, "\"a\\u0000\\u001f\\b\\t\\n\\f\\r\\\"\\\\\u007f\u2028\""},
		{`{"k":1,"k":2}`, "{\n  \"k\": 2\n}"},
		// A JavaScript object lists its array-index keys first, by value
		// (JSON.parse then JSON.stringify, as node prints them).
		{`{"path":"a","1":1,"0":0,"b":2,"a":1}`, "{\n  \"0\": 0,\n  \"1\": 1,\n  \"path\": \"a\",\n  \"b\": 2,\n  \"a\": 1\n}"},
		{`{"b":1,"10":1,"9":1,"01":1,"-1":1,"4294967295":1,"4294967294":1,"1.5":1,"":1}`, "{\n  \"9\": 1,\n  \"10\": 1,\n  \"4294967294\": 1,\n  \"b\": 1,\n  \"01\": 1,\n  \"-1\": 1,\n  \"4294967295\": 1,\n  \"1.5\": 1,\n  \"\": 1\n}"},
		{`{"k":{"2":1,"1":2}}`, "{\n  \"k\": {\n    \"1\": 2,\n    \"2\": 1\n  }\n}"},
	}
	for _, tt := range tests {
		v, err := parseJSValue([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := v.stringify(); got != tt.want {
			t.Errorf("stringify(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncateForLog(t *testing.T) {
	exact := strings.Repeat("a", 200)
	if got := truncateForLog(exact); got != exact {
		t.Errorf("200 units were cut")
	}
	if got := truncateForLog(exact + "b"); got != exact+"... (truncated)" {
		t.Errorf("201 units: %q", got)
	}
	// An emoji is two UTF-16 units; one half fits.
	if got := truncateForLog(strings.Repeat("a", 199) + "👍z"); got != strings.Repeat("a", 199)+"\uFFFD... (truncated)" {
		t.Errorf("split surrogate pair: %q", got)
	}
}

// TestParseJSValueCutShort: JSON that ends inside a value says so in one
// wording wherever it ends (before: a bare "EOF" after a bracket or a
// key, "unexpected EOF" inside a string).
func TestParseJSValueCutShort(t *testing.T) {
	for _, in := range []string{``, ` `, `{`, `[`, `[1,2`, `{"a"`, `{"a":`, `{"a":"x`, `{"path":"a.txt"`, `[[{}`, `"ab`, `{"a":[1,{"b":2}`} {
		_, err := parseJSValue([]byte(in))
		if err == nil || err.Error() != "unexpected end of JSON input" {
			t.Errorf("parseJSValue(%q) = %v, want unexpected end of JSON input", in, err)
		}
	}
	if _, err := parseJSValue([]byte(`{"a":1} x`)); err == nil || err.Error() != "unexpected data after the JSON value" {
		t.Errorf("trailing data: %v", err)
	}
}

// TestParseJSValueBareWord: a bare word is not told as a misspelt null.
func TestParseJSValueBareWord(t *testing.T) {
	for in, want := range map[string]string{
		`not json`:        `invalid character 'o' in a bare word: JSON's only ones are true, false and null (a string needs quotes)`,
		`{"path": trace}`: `invalid character 'a' in a bare word: JSON's only ones are true, false and null (a string needs quotes)`,
		`{"a":1,}`:        `invalid character '}' looking for beginning of object key string`,
	} {
		if _, err := parseJSValue([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("parseJSValue(%q) = %v, want %s", in, err, want)
		}
	}
}
