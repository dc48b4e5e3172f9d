package tokens

import "testing"

func TestRedraw(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain\nlines\n", "plain\nlines\n"},
		{"crlf\r\nkept\r\n", "crlf\r\nkept\r\n"},
		{" 10%|#  |\r 50%|### |\r100%|#####|\ndone\n", "100%|#####|\ndone\n"},
		{"bar 1\rbar 2\r", "bar 2"},                 // ends in a carriage return: the last drawing stays
		{"bar 1\rbar 2\r\n", "bar 2\r\n"},           // …and before a CRLF line end too
		{"a\r\nb 1\rb 2\nc\r\n", "a\r\nb 2\nc\r\n"}, // only the redrawn line changes
		{"\r\r\r", ""},
		{"x\r\ry\r", "y"},
	} {
		if got := Redraw(tc.in); got != tc.want {
			t.Errorf("Redraw(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
