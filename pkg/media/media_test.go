package media

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Text/Plain; charset=utf-8": "text/plain",
		"\ufeff image/PNG \u00a0":   "image/png",
		"":                          "",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name, head string
		text       bool
		mime       string
	}{
		{"Makefile", "all:\n\tgo build\n", true, "text/plain"},
		{"a.ts", "export const x = 1\n", true, "application/typescript"},
		{"a.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", false, "image/png"},
		{"data.bin", "ab\x00cd", false, "application/x-binary"},
		{"noext", "ab\x00cd", false, "application/octet-stream"},
	}
	for _, tt := range tests {
		k := Classify(tt.name, []byte(tt.head))
		if k.Text != tt.text || k.MIME != tt.mime {
			t.Errorf("Classify(%q) = %+v, want text=%v %s", tt.name, k, tt.text, tt.mime)
		}
	}
	if !MatchPatterns([]string{"image/*"}, "Image/PNG; x=1") || MatchPatterns([]string{"application/pdf"}, "image/png") {
		t.Error("MatchPatterns")
	}
}
