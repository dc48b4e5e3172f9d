package editmatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Refusals expected by a test.
const (
	refNotFound  = "not-found"
	refAmbiguous = "ambiguous"
)

type applyTest struct {
	name     string
	content  string
	old, new string
	all      bool
	want     string  // the file after the edit
	fallback string  // the step that should match ("" for exact)
	refuse   string  // refNotFound or refAmbiguous instead of want
	ranges   []Range // when set, the ranges reported
	text     string  // when set, a piece of the error text or of the note
}

var applyTests = []applyTest{
	// Exact matches behave as Mastra's.
	{name: "exact", content: "hello\nworld\n", old: "world", new: "there\nfriend",
		want: "hello\nthere\nfriend\n", ranges: []Range{{2, 3}}},
	{name: "exact replace_all, new taken literally", content: "foo\nbar\nfoo\n", old: "foo", new: "q$&q", all: true,
		want: "q$&q\nbar\nq$&q\n", ranges: []Range{{1, 1}, {3, 3}}},
	{name: "exact twice is ambiguous with Mastra's text", content: "foo\nbar\nfoo\n", old: "foo", new: "x",
		refuse: refAmbiguous, text: "The specified text appears 2 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.\nIt appears at line 1, line 3."},
	{name: "exact ranges use the original positions", content: "a\nb\na\nb\n", old: "a\nb", new: "x\ny\nz", all: true,
		want: "x\ny\nz\nx\ny\nz\n", ranges: []Range{{1, 3}, {3, 5}}},
	{name: "exact wins over a looser place", content: "x = 1\n  x = 1 \n", old: "x = 1\n", new: "x = 2\n",
		want: "x = 2\n  x = 1 \n"},
	{name: "exact replace_all ignores looser places", content: "a\n a \na\n", old: "a\n", new: "b\n", all: true,
		want: "b\n a \nb\n"},
	{name: "exact: new written with the file's CRLF", content: "a\r\nb\r\n", old: "a", new: "x\ny",
		want: "x\r\ny\r\nb\r\n"},
	{name: "exact: new written with the file's LF", content: "a\nb\n", old: "a", new: "x\r\ny",
		want: "x\ny\nb\n"},
	{name: "exact: the byte-order mark stays", content: "\uFEFFa\nb\n", old: "\uFEFFa", new: "c",
		want: "\uFEFFc\nb\n"},
	{name: "exact: a final newline is kept", content: "a\nb\n", old: "b\n", new: "c",
		want: "a\nc\n", ranges: []Range{{2, 2}}},
	{name: "exact: no final newline is added", content: "a\nb", old: "b", new: "c\n",
		want: "a\nc", ranges: []Range{{2, 3}}},
	{name: "exact: the last line deleted, still no final newline", content: "a\r\nb", old: "b", new: "",
		want: "a"},
	{name: "exact: the whole file replaced keeps its final newline", content: "a\n", old: "a\n", new: "b",
		want: "b\n"},
	{name: "exact: the whole file deleted", content: "a\n", old: "a\n", new: "",
		want: ""},
	// A place that starts with the LF of a CRLF keeps the file's CR before
	// it: new's first line ending must not bring a second CR.
	{name: "bug: exact old_string starting with the LF of a CRLF", content: "import os\r\n\r\ndef f():\r\n",
		old: "\ndef f():", new: "\n\ndef f():", want: "import os\r\n\r\n\r\ndef f():\r\n"},
	{name: "bug: exact LF of CRLFs replaced by itself changes nothing", content: "a\r\nb\r\n", old: "\n", new: "\n", all: true,
		want: "a\r\nb\r\n"},
	{name: "bug: exact old_string starting with the LF of a CRLF, at the end", content: "a\r\nb", old: "\nb", new: "\nc", want: "a\r\nc"},
	{name: "bug: exact line deleted from its LF on a CRLF file", content: "a\r\nb\r\nc\r\n", old: "\nb", new: "", want: "a\r\nc\r\n"},
	{name: "bug: exact lines joined from an LF on a CRLF file", content: "a\r\nb\r\n", old: "\nb", new: "b", want: "ab\r\n"},
	{name: "bug: new_string ending in a lone CR gets no second CR", content: "a\r\n", old: "a\r\n", new: "b\r", want: "b\r\n"},
	// Keeping the file's conventions must not undo an edit that changes
	// only them: new_string is then written as given.
	{name: "bug: exact edit that removes the final newline", content: "a\nb\n", old: "b\n", new: "b", want: "a\nb"},
	{name: "bug: exact edit that adds a final newline", content: "a\nb", old: "b", new: "b\n", want: "a\nb\n"},
	{name: "bug: exact edit that adds a final CRLF", content: "a\r\nb", old: "b", new: "b\r\n", want: "a\r\nb\r\n"},
	{name: "bug: exact edit of CRLF to LF", content: "a\r\nb\r\n", old: "\r\n", new: "\n", all: true, want: "a\nb\n"},
	{name: "bug: exact edit of LF to CRLF", content: "a\nb\n", old: "\n", new: "\r\n", all: true, want: "a\r\nb\r\n"},
	{name: "bug: exact edit that removes the byte-order mark", content: "\uFEFFa\n", old: "\uFEFFa", new: "a", want: "a\n"},
	{name: "bug: exact new_string ending in a blank line on a file without a final newline", content: "a", old: "a", new: "b\n\n",
		want: "b\n\n"},
	{name: "bug: fallback new_string ending in a blank line on a file without a final newline", content: "x\na ", old: "a  ", new: "b\n\n",
		want: "x\nb\n\n", fallback: FallbackTrailingWhitespace},
	{name: "bug: exact deletion of all of a BOM file's text leaves no empty line", content: "\uFEFFa\n", old: "\uFEFFa\n", new: "",
		want: "\uFEFF"},
	{name: "exact replacement of all of a BOM file's text keeps the mark and the final newline", content: "\uFEFFa\n", old: "\uFEFFa\n", new: "b",
		want: "\uFEFFb\n"},
	{name: "exact no-op edit stays a no-op", content: "a\nb\n", old: "a", new: "a", want: "a\nb\n"},
	{name: "empty old_string is not found", content: "abc", old: "", new: "x",
		refuse: refNotFound, text: notFoundText},

	// line-endings
	{name: "LF old_string on a CRLF file writes CRLF only", content: "one\r\ntwo\r\nthree\r\n", old: "one\ntwo", new: "1\n2\n3",
		want: "1\r\n2\r\n3\r\nthree\r\n", fallback: FallbackLineEndings, ranges: []Range{{1, 3}}},
	{name: "CRLF old_string on an LF file writes LF only", content: "one\ntwo\nthree\n", old: "one\r\ntwo", new: "1\r\n2",
		want: "1\n2\nthree\n", fallback: FallbackLineEndings},
	{name: "old_string's final newline the file lacks; none is added", content: "a\nb", old: "b\n", new: "c\n",
		want: "a\nc", fallback: FallbackLineEndings},
	{name: "no final newline is added, multi-line", content: "x\na\nb", old: "a\nb\n", new: "a\nc\nd\n",
		want: "x\na\nc\nd", fallback: FallbackLineEndings},
	{name: "a final newline is kept", content: "a \nb\n", old: "a\nb\n", new: "x",
		want: "x\n", fallback: FallbackTrailingWhitespace},
	{name: "mixed-ending file keeps each kept line's ending", content: "a\r\nb\nc\r\n", old: "a\nb\nc", new: "a\nB\nc",
		want: "a\r\nB\r\nc\r\n", fallback: FallbackLineEndings},

	// bom
	{name: "byte-order mark in old_string only", content: "hello\n", old: "\uFEFFhello", new: "bye",
		want: "bye\n", fallback: FallbackBOM},
	{name: "byte-order mark and CRLF kept", content: "\uFEFFa\r\nb\r\n", old: "\uFEFFa\nb", new: "x\ny",
		want: "\uFEFFx\r\ny\r\n", fallback: FallbackBOM},
	{name: "file's byte-order mark kept on a line-1 fallback", content: "\uFEFFa \nb\n", old: "a\nb", new: "c",
		want: "\uFEFFc\n", fallback: FallbackTrailingWhitespace},

	// trailing-whitespace
	{name: "trailing spaces in the file", content: "a  \nb\t\nc\n", old: "a\nb\n", new: "x\n",
		want: "x\nc\n", fallback: FallbackTrailingWhitespace},
	{name: "trailing spaces in old_string", content: "a\nb\nc\n", old: "a  \nb \n", new: "x\n",
		want: "x\nc\n", fallback: FallbackTrailingWhitespace},
	{name: "unchanged lines keep their trailing spaces", content: "a  \nb\nc\n", old: "a\nb", new: "a\nB",
		want: "a  \nB\nc\n", fallback: FallbackTrailingWhitespace},
	{name: "one line, trailing space", content: "x = 1 \ny\n", old: "x = 1  ", new: "x = 2",
		want: "x = 2\ny\n", fallback: FallbackTrailingWhitespace},

	// indentation
	{name: "bug: 2-space text on a 4-space Python file",
		content: "def add(a, b):\n    if a:\n        return a - b\n    return b\n",
		old:     "def add(a, b):\n  if a:\n    return a - b", new: "def add(a, b):\n  if a:\n    return a + b",
		want: "def add(a, b):\n    if a:\n        return a + b\n    return b\n", fallback: FallbackIndentation, ranges: []Range{{1, 3}}},
	{name: "bug: spaces on a tab-indented Go file keep the tabs",
		content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 2\n}\n",
		old:     "func f() {\n    if x {\n        return 1", new: "func f() {\n    if x {\n        return 3",
		want: "func f() {\n\tif x {\n\t\treturn 3\n\t}\n\treturn 2\n}\n", fallback: FallbackIndentation},
	{name: "bug: 4-space text on a 2-space TS file, no mixed indentation",
		content: "function f() {\n  if (x) {\n    return 1;\n  }\n  return 2;\n}\n",
		old:     "function f() {\n    if (x) {\n        return 1;\n    }",
		new:     "function f() {\n    if (x) {\n        log();\n        return 1;\n    }",
		want:    "function f() {\n  if (x) {\n    log();\n    return 1;\n  }\n  return 2;\n}\n", fallback: FallbackIndentation},
	// new_string in the file's frame while old_string is not (kept as written)
	{name: "old_string mis-indented, new_string as the file is (Python)",
		content: "def f(a):\n    if a:\n        x = 1\n    return 1\n",
		old:     "def f(a):\n  if a:\n    x = 1", new: "def f(a):\n    if a:\n        x = 2",
		want: "def f(a):\n    if a:\n        x = 2\n    return 1\n", fallback: FallbackIndentation,
		text: "already had it"},
	{name: "4-space old_string, 2-space new_string on a 2-space file",
		content: "if a:\n  b()\nc()\n",
		old:     "if a:\n    b()", new: "if a:\n  d()",
		want: "if a:\n  d()\nc()\n", fallback: FallbackIndentation},
	{name: "wrapping in a block stays in old_string's frame",
		content: "def f():\n    x = 1\n    y = 2\n",
		old:     "def f():\n  x = 1", new: "def f():\n  if c:\n    x = 1",
		want: "def f():\n    if c:\n        x = 1\n    y = 2\n", fallback: FallbackIndentation},
	{name: "new_string of new lines only, in the file's unit",
		content: "if a:\n    b()\n",
		old:     "if a:\n  b()", new: "if a:\n    c()\n    d()",
		want: "if a:\n    c()\n    d()\n", fallback: FallbackIndentation},
	{name: "refused: spaces of neither frame on a tab file",
		content: "func f() {\n\tif x {\n\t\tb()\n\t}\n}\n",
		old:     "func f() {\n    if x {\n        b()", new: "func f() {\n  if x {\n    c()",
		refuse: refNotFound, text: "indented neither as old_string is nor as the file is"},
	{name: "refused: shared lines vote both ways",
		content: "class C:\n    def f():\n        a = 1\n",
		old:     "def f():\n    a = 1", new: "    def f():\n    a = 1\n    x = 2",
		refuse: refNotFound, text: "indent it as old_string is"},
	{name: "tabs in new_string as the file has them, spaces in old_string",
		content: "func f() {\n\tif x {\n\t\tb()\n\t}\n}\n",
		old:     "func f() {\n    if x {\n        b()", new: "func f() {\n\tif x {\n\t\tc()",
		want: "func f() {\n\tif x {\n\t\tc()\n\t}\n}\n", fallback: FallbackIndentation},
	{name: "uniform shift", content: "class A:\n    def f(self):\n        return 1\n",
		old: "def f(self):\n    return 1", new: "def f(self):\n    return 2",
		want: "class A:\n    def f(self):\n        return 2\n", fallback: FallbackIndentation},
	{name: "tabs in old_string, spaces in the file", content: "if x:\n    y = 1\n    z = 2\n",
		old: "if x:\n\ty = 1", new: "if x:\n\ty = 1\n\tw = 3",
		want: "if x:\n    y = 1\n    w = 3\n    z = 2\n", fallback: FallbackIndentation},
	{name: "comment block's extra space carried over", content: "func f() {\n\t/*\n\t * a\n\t */\n\tg()\n}\n",
		old: "    /*\n     * a\n     */\n    g()", new: "    /*\n     * b\n     */\n    g()",
		want: "func f() {\n\t/*\n\t * b\n\t */\n\tg()\n}\n", fallback: FallbackIndentation},
	{name: "a deeper new level is extrapolated", content: "def f():\n    if a:\n        x()\n",
		old: "def f():\n  if a:\n    x()", new: "def f():\n  if a:\n    if b:\n      x()",
		want: "def f():\n    if a:\n        if b:\n            x()\n", fallback: FallbackIndentation},
	{name: "first line without its indentation is exact (Mastra)", content: "x\n    if a:\n        b()\n",
		old: "if a:\n        b()\n", new: "if a:\n        c()\n",
		want: "x\n    if a:\n        c()\n"},
	{name: "first line without its indentation, CRLF", content: "x\r\n    if a:\r\n        b()\r\n",
		old: "if a:\n        b()\n", new: "if a:\n        c()\n        d()\n",
		want: "x\r\n    if a:\r\n        c()\r\n        d()\r\n", fallback: FallbackLineEndings},
	{name: "first line without its indentation, rest shifted", content: "x\n    if a:\n        b()\n",
		old: "if a:\n    b()\n", new: "if a:\n    c()\n",
		want: "x\n    if a:\n        c()\n", fallback: FallbackIndentation},
	{name: "flattened block refused: structure unknown", content: "def f():\n    x = 1\n    y = 2\n",
		old: "def f():\nx = 1\ny = 2", new: "def f():\nx = 3\ny = 2",
		refuse: refNotFound, text: "lines 1 and 2 of old_string are indented alike, but lines 1 and 2 of the file are not"},
	{name: "different nesting refused", content: "if a:\n    x()\ny()\n",
		old: "if a:\n    x()\n    y()", new: "if a:\n    x()\n    z()",
		refuse: refNotFound, text: "when formatting is ignored"},
	{name: "joined lines do not match", content: "if a:\n    return b\n",
		old: "if a: return b", new: "if a: return c", refuse: refNotFound},

	// gutter
	{name: "read_file gutters", content: "hello\nworld\n", old: "     1→hello\n     2→world", new: "     1→hi\n     2→world",
		want: "hi\nworld\n", fallback: FallbackGutter},
	{name: "cat -n gutters, none in new_string", content: "hello\nworld\n", old: "     1\thello\n     2\tworld", new: "hi\nworld",
		want: "hi\nworld\n", fallback: FallbackGutter},
	{name: "gutter with a blank line that lost its arrow", content: "a\n\nb\n", old: "    10→a\n    11\n    12→b", new: "a\nb",
		want: "a\nb\n", fallback: FallbackGutter},
	{name: "a new_string of numbers keeps them", content: "a\nb\n", old: "     1→a\n     2→b", new: "1\n2",
		want: "1\n2\n", fallback: FallbackGutter},
	{name: "gutter numbers not consecutive", content: "x\ny\n", old: "     5→x\n     7→y", new: "z", refuse: refNotFound},

	// escapes
	{name: "literal \\n", content: "a\nb\nc\n", old: `a\nb`, new: `x\ny`,
		want: "x\ny\nc\n", fallback: FallbackEscapes},
	{name: "literal \\t and \\n", content: "if x:\n\ty\n", old: `if x:\n\ty`, new: `if x:\n\tz`,
		want: "if x:\n\tz\n", fallback: FallbackEscapes},
	{name: "escapes skipped when the file has a literal \\n", content: "printf(\"a\\n\");\na\nb\n", old: `a\nb`, new: `x`,
		refuse: refNotFound},

	// blank-lines
	{name: "extra blank line in the file", content: "a\n\nb\nc\n", old: "a\nb\nc", new: "a\nb\nd",
		want: "a\n\nb\nd\n", fallback: FallbackBlankLines},
	{name: "blank line missing in the file", content: "a\nb\nc\n", old: "a\n\nb", new: "a\n\nB",
		want: "a\nB\nc\n", fallback: FallbackBlankLines},
	{name: "extra blank line at the end of old_string", content: "a\nb\nc\n", old: "a\nb\n\n", new: "A\nb\n\n",
		want: "A\nb\nc\n", fallback: FallbackBlankLines},
	{name: "blank lines and indentation", content: "def f():\n    a()\n\n    b()\n", old: "def f():\n  a()\n  b()", new: "def f():\n  a()\n  c()",
		want: "def f():\n    a()\n\n    c()\n", fallback: FallbackBlankLines},

	{name: "many more blank lines in the file: refused", content: "a\n\n\n\n\n\n\nb\n", old: "a\nb", new: "c",
		refuse: refNotFound, text: "more than 4 blank lines old_string does not have"},
	{name: "a block with many more blank lines still counts as a place", content: "a\n\n\n\n\n\n\nb\nx\na \nb\n", old: "a\nb", new: "c",
		refuse: refAmbiguous, text: "lines 1-8 (blank-lines), lines 10-11 (trailing-whitespace)"},

	// unicode
	{name: "curly quotes inside a line", content: "say \u201chi\u201d now\n", old: `say "hi"`, new: `say "bye"`,
		want: "say \"bye\" now\n", fallback: FallbackUnicode},
	{name: "dash and no-break space", content: "a \u2014 b\u00a0c\n", old: "a - b c", new: "z",
		want: "z\n", fallback: FallbackUnicode},
	{name: "curly quotes in old_string", content: "x = 'a'\n", old: "x = \u2018a\u2019", new: "x = 'b'",
		want: "x = 'b'\n", fallback: FallbackUnicode},
	{name: "ellipsis", content: "wait\u2026\n", old: "wait...", new: "go",
		want: "go\n", fallback: FallbackUnicode},
	{name: "thin space", content: "n = 1\u2009000\n", old: "n = 1 000", new: "n = 1000",
		want: "n = 1000\n", fallback: FallbackUnicode},
	{name: "no-break spaces as indentation", content: "if a:\n    b()\n", old: "if a:\n\u00a0\u00a0b()", new: "if a:\n\u00a0\u00a0c()",
		want: "if a:\n    c()\n", fallback: FallbackUnicode},
	{name: "unchanged line keeps its quotes", content: "// \u201cdoc\u201d\nx = 1\n", old: "// \"doc\"\nx = 1", new: "// \"doc\"\nx = 2",
		want: "// \u201cdoc\u201d\nx = 2\n", fallback: FallbackUnicode},

	// normalization
	{name: "NFD old_string, NFC file", content: "caf\u00e9 ok\n", old: "cafe\u0301 ok", new: "tea ok",
		want: "tea ok\n", fallback: FallbackNormalization},
	{name: "inside a line", content: "le caf\u00e9 noir\n", old: "cafe\u0301", new: "th\u00e9",
		want: "le th\u00e9 noir\n", fallback: FallbackNormalization},
	{name: "written in the file's form (NFD)", content: "cafe\u0301\n", old: "caf\u00e9", new: "caf\u00e9s",
		want: "cafe\u0301s\n", fallback: FallbackNormalization},

	// Partial lines.
	{name: "last line cut, CRLF", content: "foo(a, b)\r\nbar()\r\n", old: "foo(a, b)\nbar", new: "foo(a)\nbaz",
		want: "foo(a)\r\nbaz()\r\n", fallback: FallbackLineEndings},
	{name: "first line cut, CRLF", content: "x = foo(a,\r\n  b)\r\n", old: "foo(a,\n  b)", new: "foo(a)",
		want: "x = foo(a)\r\n", fallback: FallbackLineEndings},
	{name: "bytes that are not UTF-8 survive", content: "\xff\xfe\na \nb\n", old: "a\nb", new: "c",
		want: "\xff\xfe\nc\n", fallback: FallbackTrailingWhitespace},

	// Ambiguity across levels.
	{name: "two places at different levels are ambiguous",
		content: "func a() {\n  return 1 \n}\nfunc b() {\n\treturn 1\n}\n", old: "  return 1\n}", new: "  return 2\n}",
		refuse: refAmbiguous, text: "lines 2-3 (trailing-whitespace), lines 5-6 (indentation)"},
	{name: "two places at one level suggest replace_all", content: "a \nb\na \nb\n", old: "a\nb", new: "c\nd",
		refuse: refAmbiguous, text: "To change all of them, use replace_all."},
	{name: "replace_all at one level", content: "a \nb\na \nb\n", old: "a\nb", new: "c\nd", all: true,
		want: "c\nd\nc\nd\n", fallback: FallbackTrailingWhitespace, ranges: []Range{{1, 2}, {3, 4}}},
	{name: "replace_all refused across levels", content: "a \nb\n\na\n  b\n", old: "a\nb", new: "c\nd", all: true,
		refuse: refAmbiguous, text: "replace_all was not applied"},
	{name: "a stricter and a looser place are ambiguous",
		content: "if x:\r\n    y()\r\nif x:\r\n  y()\r\n", old: "if x:\n    y()", new: "if x:\n    z()",
		refuse: refAmbiguous, text: "(line-endings), lines 3-4 (indentation)"},

	// Not found.
	{name: "content that differs is never matched", content: "x = 1\n", old: "x = 2", new: "x = 3",
		refuse: refNotFound, text: "it first differs at line 1:\n  file:       x = 1\n  old_string: x = 2"},
	{name: "invisible characters shown", content: "a\n\tb  \nc\n", old: "a\n  bb\nc", new: "x",
		refuse: refNotFound, text: "  file:       →b··\n  old_string:   bb"},
	{name: "elision marker", content: "func a() {\n\tx := 1\n\ty := 2\n}\n", old: "func a() {\n\t// ... existing code ...\n\ty := 2\n}", new: "x",
		refuse: refNotFound, text: "not an abbreviation"},
	{name: "already applied", content: "a\nb := 3\n", old: "b := 2", new: "b := 3",
		refuse: refNotFound, text: "new_string is already present at line 2; the edit may have been applied already."},
}

func TestApply(t *testing.T) {
	for _, tt := range applyTests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Apply([]byte(tt.content), tt.old, tt.new, tt.all)
			if tt.refuse != "" {
				if err == nil {
					t.Fatalf("applied (%s): %q; want %s", m.Fallback, m.Content(), tt.refuse)
				}
				var nf *NotFoundError
				var am *AmbiguousError
				switch {
				case tt.refuse == refNotFound && !errors.As(err, &nf),
					tt.refuse == refAmbiguous && !errors.As(err, &am):
					t.Fatalf("error %T %v; want %s", err, err, tt.refuse)
				}
				if !strings.Contains(err.Error(), tt.text) {
					t.Errorf("error text:\n%s\nwant it to contain:\n%s", err, tt.text)
				}
				checkErr(t, err)
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got := string(m.Content()); got != tt.want {
				t.Errorf("content:\n got %q\nwant %q", got, tt.want)
			}
			if m.Fallback != tt.fallback {
				t.Errorf("fallback %q, want %q (note %q)", m.Fallback, tt.fallback, m.Note)
			}
			if tt.ranges != nil && !reflect.DeepEqual(m.Ranges, tt.ranges) {
				t.Errorf("ranges %v, want %v", m.Ranges, tt.ranges)
			}
			if tt.text != "" && !strings.Contains(m.Note, tt.text) {
				t.Errorf("note %q, want it to contain %q", m.Note, tt.text)
			}
			checkMatch(t, []byte(tt.content), tt.old, tt.new, tt.all, m)
		})
	}
}

func TestBudget(t *testing.T) {
	defer func(n int) { maxVisits = n }(maxVisits)
	maxVisits = 1000
	content := strings.Repeat("}\n", 2000)
	_, err := Apply([]byte(content), strings.Repeat(" }\n", 50), "x", false)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(nf.Reason, "too repetitive") {
		t.Fatalf("got %v", err)
	}
}
