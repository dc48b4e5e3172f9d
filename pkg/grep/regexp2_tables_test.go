package grep

import (
	"testing"

	"github.com/dlclark/regexp2/v2"
)

// TestRegexp2LazyTables holds the copy of regexp2 in third_party to its
// patch: the Unicode tables it builds on first use instead of at start-up
// (third_party/patches/regexp2.patch) must answer as the tables built at
// start did. Each case reaches one of them.
func TestRegexp2LazyTables(t *testing.T) {
	es := regexp2.ECMAScript | regexp2.Unicode
	cases := []struct {
		pattern    string
		opts       regexp2.RegexOptions
		yes, no    string
		tableNamed string
	}{
		{`^\p{gc=Lu}$`, es, "A", "a", "ecmaCategoryAliases"},
		{`^\p{Lu}$`, es, "Á", "á", "ecmaCategoryAliases"},
		{`^\p{Script=Greek}$`, es, "α", "a", "ecmaScriptAliases"},
		{`^\p{scx=Grek}$`, es, "α", "a", "ecmaScriptExtensions"},
		{`^\p{AHex}$`, es, "f", "g", "ecmaBinaryAliases, ecmaPropertyRanges"},
		{`^\p{Emoji}$`, es, "😀", "a", "unicodeAliasCategories"},
		{`^\p{Lu}$`, 0, "A", "a", "unicodeAliasCategories (lookupUnicodeCategory)"},
		{`^\p{Emoji}$`, 0, "😀", "a", "unicodeAliasCategories"},
		{`^\p{ExtPict}$`, 0, "😀", "a", "unicodeSupportedPropertyAliases"},
		{`^\p{wb=ZWJ}$`, 0, "\u200d", "a", "unicodeSupportedPropertyValueAliases"},
		{`^\p{RI}$`, 0, "\U0001F1E6", "a", "unicodeBarePropertyValueAliases"},
	}
	for _, c := range cases {
		re, err := regexp2.Compile(c.pattern, c.opts)
		if err != nil {
			t.Errorf("%s (options %#x, %s): %v", c.pattern, c.opts, c.tableNamed, err)
			continue
		}
		for s, want := range map[string]bool{c.yes: true, c.no: false} {
			if got, err := re.MatchString(s); err != nil || got != want {
				t.Errorf("%s (options %#x, %s) on %q = %v, %v; want %v", c.pattern, c.opts, c.tableNamed, s, got, err, want)
			}
		}
	}
}
