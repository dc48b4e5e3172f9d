package js

import "testing"

func TestUTF16(t *testing.T) {
	tests := []struct {
		s        string
		len, cut int
		want     string
	}{
		{"abc", 3, 2, "ab"},
		{"é→", 2, 1, "é"},
		{"a👍b", 4, 2, "a\uFFFD"}, // half of the pair
		{"a👍b", 4, 3, "a👍"},
		{"abc", 3, 9, "abc"},
		{"", 0, 0, ""},
	}
	for _, tt := range tests {
		if got := UTF16Len(tt.s); got != tt.len {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.s, got, tt.len)
		}
		if got := CutUTF16(tt.s, tt.cut); got != tt.want {
			t.Errorf("CutUTF16(%q, %d) = %q, want %q", tt.s, tt.cut, got, tt.want)
		}
	}
}
