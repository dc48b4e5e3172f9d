package gitignore

import (
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		pathname      bool // WM_PATHNAME
		want          bool
	}{
		{"foo", "foo", true, true},
		{"foo", "bar", true, false},
		{"", "", true, true},
		{"", "a", true, false},
		{"a", "", true, false},
		{"???", "foo", true, true},
		{"??", "foo", true, false},
		{"*", "foo", true, true},
		{"*", "", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", true, false},
		{"*foo*", "foo", true, true},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{`foo\*`, "foo*", true, true},
		{`foo\*bar`, "foobar", true, false},
		{`f\\oo`, `f\oo`, true, true},
		{`\`, `\`, true, false}, // trailing backslash never matches
		{`a\`, "a", true, false},
		{`\a`, "a", true, true},

		// Classes.
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", true, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", true, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "a]b", true, true},
		{"a[]-]b", "aab", true, false},
		{"a[]a-]b", "aab", true, true},
		{"]", "]", true, true},
		{"[!]a]", "b", true, true},
		{"[!]a]", "]", true, false},
		{`[\]]`, "]", true, true},
		{`[\-_]`, "-", true, true},
		{"[a-]", "-", true, true},
		{"[--0]", "/", true, false}, // the range holds '/', but '/' is special
		{"[--0]", "/", false, true},
		{"[--0]", ".", true, true},
		{"[z-a]", "m", true, false},
		{"[a-c-e]", "-", true, true}, // no range can start after a range
		{"[a-c-e]", "d", true, false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
		{"[[:alpha:]]", "a", true, true},
		{"[[:alpha:]]", "1", true, false},
		{"[[:alpha:][:digit:]]", "1", true, true},
		{"[[:digit:]]", "5", true, true},
		{"[[:upper:]]", "a", true, false},
		{"[[:upper:]]", "A", true, true},
		{"[[:lower:]]", "a", true, true},
		{"[[:xdigit:]]", "F", true, true},
		{"[[:xdigit:]]", "g", true, false},
		{"[[:punct:]]", "!", true, true},
		{"[[:punct:]]", "a", true, false},
		{"[[:space:]]", " ", true, true},
		{"[[:space:]]", "\v", true, false}, // git's isspace
		{"[[:blank:]]", "\t", true, true},
		{"[[:cntrl:]]", "\x01", true, true},
		{"[[:graph:]]", " ", true, false},
		{"[[:print:]]", " ", true, true},
		{"[[:alnum:]]", "\xe9", true, false},
		{"[[:foo:]]", "a", true, false}, // unknown class: no match at all
		{"[[:alpha]", "a", true, true},  // no ":]": the set '[', ':', 'a', 'l'...
		{"[[:alpha]", ":", true, true},
		{"[[:alpha]", "b", true, false},
		{"[[:alpha]x", "[x", true, true},
		{"[a-", "a", true, false}, // unterminated
		{"[", "[", true, false},
		{"a[", "a[", true, false},
		{"[!", "a", true, false},

		// Slashes.
		{"foo*bar", "foo/baz/bar", true, false},
		{"foo*bar", "foo/baz/bar", false, true},
		{"foo?bar", "foo/bar", true, false},
		{"foo?bar", "foo/bar", false, true},
		{"foo[/]bar", "foo/bar", true, false},
		{"foo[/]bar", "foo/bar", false, true},
		{"foo[!a]bar", "foo/bar", true, false},
		{"*/b", "a/b", true, true},
		{"*/b", "a/c/b", true, false},
		{"*/", "a/", true, true},
		{"*", "a/b", true, false},
		{"*", "a/b", false, true},

		// Double stars.
		{"**", "a/b", true, true},
		{"**/foo", "foo", true, true},
		{"**/foo", "x/y/foo", true, true},
		{"**/foo", "xfoo", true, false},
		{"**/foo", "x/yfoo", true, false},
		{"foo/**", "foo/a/b", true, true},
		{"foo/**", "foo/", true, true},
		{"foo/**", "foo", true, false},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/x/b", true, true},
		{"a/**/b", "a/x/y/b", true, true},
		{"a/**/b", "a/xb", true, false},
		{"a/**/b", "ab", true, false},
		{"a**b", "a/x/b", true, false}, // not between slashes: like '*'
		{"a**b", "axxb", true, true},
		{"a/**b", "a/x/b", true, false},
		{"a/***/b", "a/x/y/b", true, true},
		{"**/*.txt", "a/b.txt", true, true},
		{"**/*.txt", "b.txt", true, true},
		{"**/b/**/c", "b/c", true, true},
		{"**/b/**/c", "x/b/y/z/c", true, true},
		{`**\/x`, "a/b/x", true, true},

		// From the classic wildmatch tests.
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", true, false},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", true, false},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", true, false},
		{"*/*/*", "foo/bb/aa/rr", true, false},
		{"**/**/**", "foo/bb/aa/rr", true, true},
		{"*X*i", "abcXdefXghi", true, true},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.text, tt.pathname); got != tt.want {
			t.Errorf("wildmatch(%q, %q, pathname=%v) = %v, want %v", tt.pattern, tt.text, tt.pathname, got, tt.want)
		}
	}
}

// TestWildmatchPathological checks that the stars do not backtrack
// exponentially.
func TestWildmatchPathological(t *testing.T) {
	pattern := strings.Repeat("*a", 30) + "b"
	text := strings.Repeat("a", 200)
	if wildmatch(pattern, text, true) {
		t.Error("matched")
	}
	if wildmatch(strings.Repeat("**/a", 20)+"/b", strings.Repeat("a/", 100), true) {
		t.Error("matched")
	}
}
