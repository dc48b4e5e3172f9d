package patch

import (
	"strconv"
	"testing"
)

func strconvQuote(b []byte) string { return strconv.Quote(string(b)) }

// mustParse parses a patch the test wrote to be valid.
func mustParse(tb testing.TB, text string) *Patch {
	tb.Helper()
	p, err := Parse(text)
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return p
}
