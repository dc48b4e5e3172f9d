package js

import (
	"strings"
	"testing"
)

func TestIsSpace(t *testing.T) {
	for _, r := range "\t\n\v\f\r \u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff" {
		if !IsSpace(r) {
			t.Errorf("IsSpace(%U) = false", r)
		}
	}
	for _, r := range "a\u0085\u200b\u180e_0" {
		if IsSpace(r) {
			t.Errorf("IsSpace(%U) = true", r)
		}
	}
	if got := TrimSpace("\ufeff x \u3000"); got != "x" {
		t.Errorf("TrimSpace = %q", got)
	}
	if got := strings.Join(Fields(" a\u00a0b\tc "), ","); got != "a,b,c" {
		t.Errorf("Fields = %q", got)
	}
}

func TestFormatNumber(t *testing.T) {
	tests := map[float64]string{
		0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1.5e-7: "1.5e-7", 123456789012: "123456789012",
		0.000001: "0.000001", 1e20: "100000000000000000000",
	}
	for f, want := range tests {
		if got := FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	var sb strings.Builder
	Quote(&sb, "a\"b\\c\n\x01é</>")
	if got, want := sb.String(), `"a\"b\\c\n\u0001é</>"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

func TestDecodeUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"ok é":             "ok é",
		"\xE0\x80":         "\uFFFD\uFFFD", // overlong: the lead byte alone
		"\xED\xA0\x80":     "\uFFFD\uFFFD\uFFFD",
		"\xF0\x9F\x98":     "\uFFFD", // a truncated emoji is one
		"\xF4\x90":         "\uFFFD\uFFFD",
		"a\xC3":            "a\uFFFD",
		"\xE2\x82\xAC\xFF": "€\uFFFD",
	} {
		if got := DecodeUTF8([]byte(in)); got != want {
			t.Errorf("DecodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}
