package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// codexPatch wraps file sections in an envelope.
func codexPatch(body ...string) string {
	return lines(append(append([]string{"*** Begin Patch"}, body...), "*** End Patch")...)
}

func tree(kv ...string) map[string][]byte {
	m := map[string][]byte{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = []byte(kv[i+1])
	}
	return m
}

type planCase struct {
	name  string
	files map[string][]byte
	patch string
	// want is the tree afterwards; levels, when set, the levels of the
	// first change's hunks.
	want   map[string][]byte
	levels []Level
	// kind and msg describe the error wanted instead.
	kind Kind
	msg  string
}

func runPlanCases(t *testing.T, cases []planCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := mustParse(t, tc.patch).Plan(mapReader(tc.files))
			if tc.kind != "" {
				if err == nil {
					t.Fatalf("Plan succeeded, want a %s error; result:\n%s", tc.kind, dumpTree(applyChanges(tc.files, changes)))
				}
				if KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error (kind %q):\n%v\nwant kind %q and a message with %q", KindOf(err), err, tc.kind, tc.msg)
				}
				if changes != nil {
					t.Errorf("Plan returned changes with its error: %v", changes)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if got := applyChanges(tc.files, changes); !equalTrees(got, tc.want) {
				t.Errorf("result:\n%s\nwant:\n%s", dumpTree(got), dumpTree(tc.want))
			}
			if tc.levels != nil {
				var got []Level
				for _, h := range changes[0].Hunks {
					got = append(got, h.Level)
				}
				if !reflect.DeepEqual(got, tc.levels) {
					t.Errorf("levels %q, want %q", got, tc.levels)
				}
			}
		})
	}
}

func TestPlanLeniency(t *testing.T) {
	runPlanCases(t, []planCase{{
		name:   "exact",
		files:  tree("f", "a\nb\nc\n"),
		patch:  codexPatch("*** Update File: f", "@@", " a", "-b", "+B"),
		want:   tree("f", "a\nB\nc\n"),
		levels: []Level{LevelExact},
	}, {
		name:   "trailing whitespace, kept from the file",
		files:  tree("f", "a  \nb\t\nc\n"),
		patch:  codexPatch("*** Update File: f", "@@", " a", "-b", "+B"),
		want:   tree("f", "a  \nB\nc\n"),
		levels: []Level{LevelTrailingWhitespace},
	}, {
		name:   "bug: whitespace at both ends; added lines are re-indented by the block's shift",
		files:  tree("f", "    if x:\n        y()\n"),
		patch:  codexPatch("*** Update File: f", "@@", " if x:", "-    y()", "+    z()"),
		want:   tree("f", "    if x:\n        z()\n"),
		levels: []Level{LevelWhitespace},
	}, {
		name:   "bug: spaces in the patch, tabs in the file: added lines get tabs (Python would raise TabError)",
		files:  tree("t.py", "def f(a):\n\tif a:\n\t\treturn 1\n\treturn 2\n"),
		patch:  codexPatch("*** Update File: t.py", "@@ def f(a):", "     if a:", "-        return 1", "+        print(a)", "+        if a > 1:", "+            return 3", "     return 2"),
		want:   tree("t.py", "def f(a):\n\tif a:\n\t\tprint(a)\n\t\tif a > 1:\n\t\t\treturn 3\n\treturn 2\n"),
		levels: []Level{LevelWhitespace},
	}, {
		name:   "2-space patch on a 4-space file",
		files:  tree("f.py", "def f():\n    if a:\n        x()\n"),
		patch:  codexPatch("*** Update File: f.py", "@@", " def f():", "   if a:", "-    x()", "+    y()", "+  z()"),
		want:   tree("f.py", "def f():\n    if a:\n        y()\n    z()\n"),
		levels: []Level{LevelWhitespace},
	}, {
		name:   "indentation that does not map consistently is kept as the patch has it",
		files:  tree("f", "a:\n    b\n  c\n"),
		patch:  codexPatch("*** Update File: f", "@@", " a:", "  b", "-  c", "+  d"),
		want:   tree("f", "a:\n    b\n  d\n"),
		levels: []Level{LevelWhitespace},
	}, {
		name:   "unicode punctuation",
		files:  tree("f", "intro\nsay “hello” – it’s\u00a0time\nend\n"),
		patch:  codexPatch("*** Update File: f", "@@", " intro", `-say "hello" - it's time`, `+say "bye"`),
		want:   tree("f", "intro\nsay \"bye\"\nend\n"),
		levels: []Level{LevelUnicode},
	}, {
		name:   "an exact match wins, so a looser match elsewhere is no ambiguity (as in edit)",
		files:  tree("f", "x \nfoo\nx\nbar\n"),
		patch:  codexPatch("*** Update File: f", "@@", "-x", "+y"),
		want:   tree("f", "x \nfoo\ny\nbar\n"),
		levels: []Level{LevelExact},
	}, {
		name:  "two places refused",
		files: tree("f", "a\nb\nc\na\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+B"),
		kind:  KindAmbiguous,
		msg:   "f: hunk 1 (patch line 3): matches 2 places (lines 1 and 4); add context lines or an @@ line",
	}, {
		name:  "two places at a loose level refused",
		files: tree("f", "a \nb\na\t\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+B"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 1 and 3) when trailing whitespace is ignored",
	}, {
		name:   "an anchor picks the place",
		files:  tree("f.go", "func f() {\n\treturn 1\n}\nfunc g() {\n\treturn 1\n}\n"),
		patch:  codexPatch("*** Update File: f.go", "@@ func g() {", "-\treturn 1", "+\treturn 2"),
		want:   tree("f.go", "func f() {\n\treturn 1\n}\nfunc g() {\n\treturn 2\n}\n"),
		levels: []Level{LevelExact},
	}, {
		name:  "a repeated anchor is fine when every occurrence leads to the same place",
		files: tree("f", "x\nA\nx\nB\n"),
		patch: codexPatch("*** Update File: f", "@@ x", "-B", "+C"),
		want:  tree("f", "x\nA\nx\nC\n"),
	}, {
		name:  "a repeated anchor that leads to two places is refused",
		files: tree("f", "x\nB\nx\nB\n"),
		patch: codexPatch("*** Update File: f", "@@ x", "-B", "+C"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 2 and 4)",
	}, {
		name:  "several anchors in a row",
		files: tree("a.py", "class A:\n  def run():\n    pass\nclass B:\n  def run():\n    pass\n"),
		patch: codexPatch("*** Update File: a.py", "@@ class B:", "@@   def run():", "-    pass", "+    return 1"),
		want:  tree("a.py", "class A:\n  def run():\n    pass\nclass B:\n  def run():\n    return 1\n"),
	}, {
		name:  "bug: lines not under their @@ line are not looked for in the next function (Python)",
		files: tree("f.py", "def a():\n    y = 1\n    return y\n\ndef b():\n    x = 1\n    return x\n"),
		patch: codexPatch("*** Update File: f.py", "@@ def a():", "-    x = 1", "+    x = 2"),
		kind:  KindNotFound,
		msg:   `f.py: hunk 1 (patch line 3): its lines were not found at or after line 2` + "\n" + `  they are at line 6, under "def b():" (line 5), outside the block that the @@ line "def a():" opens at line 1`,
	}, {
		name:  "bug: lines not under their @@ line are not looked for in the next function (Go)",
		files: tree("f.go", "func a() {\n\ty := 1\n}\n\nfunc b() {\n\tx := 1\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func a() {", "-\tx := 1", "+\tx := 2"),
		kind:  KindNotFound,
		msg:   `under "func b() {" (line 5)`,
	}, {
		name:  "bug: a method is not looked for in the next class",
		files: tree("a.py", "class A:\n  def other():\n    pass\nclass B:\n  def run():\n    pass\n"),
		patch: codexPatch("*** Update File: a.py", "@@ class A:", "@@   def run():", "-    pass", "+    return 1"),
		kind:  KindNotFound,
		msg:   `under "class B:" (line 4), outside the block that the @@ line "class A:" opens at line 1`,
	}, {
		name:  "an @@ line that opens no block is a landmark: the lines may follow it anywhere",
		files: tree("f.go", "// helpers\nfunc h() {\n\treturn 1\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ // helpers", "-\treturn 1", "+\treturn 2"),
		want:  tree("f.go", "// helpers\nfunc h() {\n\treturn 2\n}\n"),
	}, {
		name:  "lines just after the block of their @@ line, as git names it, are found",
		files: tree("f.go", "func a() {\n\treturn 1\n}\n\nvar x = 1\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func a() {", "-var x = 1", "+var x = 2"),
		want:  tree("f.go", "func a() {\n\treturn 1\n}\n\nvar x = 2\n"),
	}, {
		name:  "a second hunk under the same @@ line stays in that function",
		files: tree("f.go", "func a() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n\nfunc b() {\n\tz := 3\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func a() {", "-\tx := 1", "+\tx := 10", "@@ func a() {", "-\tz := 3", "+\tz := 30"),
		want:  tree("f.go", "func a() {\n\tx := 10\n\ty := 2\n\tz := 30\n}\n\nfunc b() {\n\tz := 3\n}\n"),
	}, {
		name:  "the same, with a class and a method: the shared leading @@ lines stay",
		files: tree("a.py", "class A:\n    def f(self):\n        return 1\n    def g(self):\n        return 1\nclass B:\n    def g(self):\n        return 1\n"),
		patch: codexPatch("*** Update File: a.py", "@@ class A:", "@@     def f(self):", "-        return 1", "+        return 2",
			"@@ class A:", "@@     def g(self):", "-        return 1", "+        return 3"),
		want: tree("a.py", "class A:\n    def f(self):\n        return 2\n    def g(self):\n        return 3\nclass B:\n    def g(self):\n        return 1\n"),
	}, {
		name:  "a repeated @@ line whose lines are also under a later same line is refused",
		files: tree("a.py", "class A:\n    def __init__(self):\n        self.x = 1\n        self.y = 1\nclass B:\n    def __init__(self):\n        self.y = 1\n"),
		patch: codexPatch("*** Update File: a.py", "@@     def __init__(self):", "-        self.x = 1", "+        self.x = 2",
			"@@     def __init__(self):", "-        self.y = 1", "+        self.y = 2"),
		kind: KindAmbiguous,
		msg:  "matches 2 places (lines 4 and 7)",
	}, {
		name:  "a repeated @@ line whose lines are before the previous hunk is still out of order",
		files: tree("f.go", "func a() {\n\tz := 3\n\tx := 1\n}\n\nfunc b() {\n\tz := 3\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func a() {", "-\tx := 1", "+\tx := 10", "@@ func a() {", "-\tz := 3", "+\tz := 30"),
		kind:  KindNotFound,
		msg:   `its @@ line "func a() {" was not found at or after line 4`,
	}, {
		name:  "a repeated @@ line whose lines fit twice in the function is refused",
		files: tree("f.go", "func a() {\n\tx := 1\n\tz := 3\n\tz := 3\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func a() {", "-\tx := 1", "+\tx := 10", "@@ func a() {", "-\tz := 3", "+\tz := 30"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 3 and 4)",
	}, {
		name:  "an @@ line that encloses the previous hunk's end holds the next hunk too",
		files: tree("f.go", "func a() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n\nfunc b() {\n\tz := 3\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@", " func a() {", "-\tx := 1", "+\tx := 10", "@@ func a() {", "-\tz := 3", "+\tz := 30"),
		want:  tree("f.go", "func a() {\n\tx := 10\n\ty := 2\n\tz := 30\n}\n\nfunc b() {\n\tz := 3\n}\n"),
	}, {
		name:  "a heading opens no block: an @@ heading before the previous hunk is not found",
		files: tree("r.md", "## A\nx\ny\n## B\ny\n"),
		patch: codexPatch("*** Update File: r.md", "@@", "-x", "+X", "@@ ## A", "-y", "+Y"),
		kind:  KindNotFound,
		msg:   `its @@ line "## A" was not found at or after line 3`,
	}, {
		name:  "an @@ line that begins a line of the file, up to a word's end",
		files: tree("a.py", "def parser():\n    return 0\ndef parse(self, text):\n    return 0\n"),
		patch: codexPatch("*** Update File: a.py", "@@ def parse", "-    return 0", "+    return 1"),
		want:  tree("a.py", "def parser():\n    return 0\ndef parse(self, text):\n    return 1\n"),
	}, {
		name:  "an @@ line that begins two lines leads to two places: refused",
		files: tree("f.go", "func (p *P) Next() int {\n\treturn 0\n}\nfunc (q *Q) Next() int {\n\treturn 0\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func", "-\treturn 0", "+\treturn 1"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 2 and 5)",
	}, {
		name:  "an @@ line that only begins a word of the file is not found",
		files: tree("a.py", "def parser():\n    return 0\n"),
		patch: codexPatch("*** Update File: a.py", "@@ def parse", "-    return 0", "+    return 1"),
		kind:  KindNotFound,
		msg:   `its @@ line "def parse" was not found`,
	}, {
		name:  "bug: a long @@ line cut mid-word (git cuts its function lines at 80 bytes) begins its line",
		files: tree("f.go", "func assemble(f *fileText, fp *FilePatch, format string, done []placed, old []byte) []byte {\n\treturn nil\n}\n"),
		patch: codexPatch("*** Update File: f.go", "@@ func assemble(f *fileText, fp *FilePatch, format string, done []placed, old []by", "-\treturn nil", "+\treturn old"),
		want:  tree("f.go", "func assemble(f *fileText, fp *FilePatch, format string, done []placed, old []byte) []byte {\n\treturn old\n}\n"),
	}, {
		name:   "bug: the level is the old lines', not that of an @@ line written without its indentation",
		files:  tree("f", "  func g() {\nx\n"),
		patch:  codexPatch("*** Update File: f", "@@ func g() {", "-x", "+y"),
		want:   tree("f", "  func g() {\ny\n"),
		levels: []Level{LevelExact},
	}, {
		name:   "bug: an @@ line that begins its line is no leniency either",
		files:  tree("m.py", "class A:\n    def parse(self, text):\n        return 1\n\nclass B:\n    def parse(self, text):\n        return 1\n"),
		patch:  codexPatch("*** Update File: m.py", "@@ class B:", "@@ def parse", "-        return 1", "+        return 2"),
		want:   tree("m.py", "class A:\n    def parse(self, text):\n        return 1\n\nclass B:\n    def parse(self, text):\n        return 2\n"),
		levels: []Level{LevelExact},
	}, {
		name:  "bug: two places found through a prefix @@ line, each exact, are ambiguous with no level named",
		files: tree("m.py", "class A:\n    def parse(self, text):\n        return 1\n\nclass B:\n    def parse(self, text):\n        return 1\n"),
		patch: codexPatch("*** Update File: m.py", "@@ def parse", "-        return 1", "+        return 2"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 3 and 7); add context lines",
	}, {
		name:  "an ambiguous hunk names the level its old lines needed, not its @@ line's",
		files: tree("m.py", "class A:\n    def parse(self, text):\n        return 1 \n\nclass B:\n    def parse(self, text):\n        return 1 \n"),
		patch: codexPatch("*** Update File: m.py", "@@ def parse(self, text):", "-        return 1", "+        return 2"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 3 and 7) when trailing whitespace is ignored; add",
	}, {
		name:   "a hunk that only adds lines after a prefix @@ line reports no level",
		files:  tree("m.py", "def parse(self, text):\n    return 1\n"),
		patch:  codexPatch("*** Update File: m.py", "@@ def parse", "+    # parses"),
		want:   tree("m.py", "def parse(self, text):\n    # parses\n    return 1\n"),
		levels: []Level{LevelExact},
	}, {
		name:  "each hunk is searched for after the previous one",
		files: tree("f", "a\nb\nc\nd\na\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+1", " c", "@@", " a", "-b", "+2"),
		want:  tree("f", "a\n1\nc\nd\na\n2\n"),
	}, {
		name:  "a unified header's line number settles a tie",
		files: tree("f", "a\nx\na\nx\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -3,2 +3,2 @@", " a", "-x", "+y"),
		want:  tree("f", "a\nx\na\ny\n"),
	}, {
		name:  "a unified header that points at neither place settles nothing",
		files: tree("f", "a\nx\na\nx\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -2,2 +2,2 @@", " a", "-x", "+y"),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 1 and 3); add context lines so that it matches only one",
	}, {
		name:  "unified line numbers shift with the previous hunks",
		files: tree("f", "top\nTOP2\na\nx\na\nx\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-TOP2", "+T2", "@@ -4,2 +4,2 @@", " a", "-x", "+y"),
		want:  tree("f", "top\nT2\na\nx\na\ny\n"),
	}, {
		name:  "a pure insertion placed by a header whose shift makes it negative is an overlap, not an append",
		files: tree("f", "x\ny\nz\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -3 +3 @@", "-x", "+X", "@@ -1,0 +2 @@", "+new"),
		kind:  KindOverlap,
		msg:   "would start at line 0",
	}, {
		name:  "a unified hunk without context goes where its header says",
		files: tree("f", "a\nb\nc\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -2,0 +3 @@", "+new"),
		want:  tree("f", "a\nb\nnew\nc\n"),
	}, {
		name:  "a retry without trailing blank lines that finds two places is refused as ambiguous",
		files: tree("f", "a\nb\nc\na\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+B", " "),
		kind:  KindAmbiguous,
		msg:   "matches 2 places (lines 1 and 4)",
	}, {
		name:  "blank context lines at the end of a hunk are dropped when they are not in the file",
		files: tree("f", "a\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+B", " ", " "),
		want:  tree("f", "a\nB\n"),
	}})
}

func TestPlanBytesKept(t *testing.T) {
	runPlanCases(t, []planCase{{
		name:  "CRLF file stays CRLF",
		files: tree("w", "a\r\nb\r\nc\r\n"),
		patch: codexPatch("*** Update File: w", "@@", " a", "-b", "+B", "+B2"),
		want:  tree("w", "a\r\nB\r\nB2\r\nc\r\n"),
	}, {
		name:  "mixed endings: lines kept keep theirs, added ones take the usual one",
		files: tree("w", "a\r\nb\nc\r\nd\r\n"),
		patch: codexPatch("*** Update File: w", "@@", " b", "+new"),
		want:  tree("w", "a\r\nb\nnew\r\nc\r\nd\r\n"),
	}, {
		// A unified diff whose lines carry their own endings (a "\r" on some
		// lines, not on all: a diff made by git of a change to line
		// endings) is applied as written.
		name:  "a diff that turns LF lines into CRLF ones",
		files: tree("w", "one\ntwo\n"),
		patch: "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n-one\n-two\n+one\r\n+two\r\n",
		want:  tree("w", "one\r\ntwo\r\n"),
	}, {
		name:  "a diff that turns CRLF lines into LF ones",
		files: tree("w", "one\r\ntwo\r\n"),
		patch: "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n-one\r\n-two\r\n+one\n+two\n",
		want:  tree("w", "one\ntwo\n"),
	}, {
		name:  "a diff that adds CRLF lines to an LF file",
		files: tree("w", "a\nb\n"),
		patch: "--- a/w\n+++ b/w\n@@ -1,2 +1,3 @@\n a\n+x\r\n b\n",
		want:  tree("w", "a\nx\r\nb\n"),
	}, {
		name:  "a diff of a CRLF file, every line with its CR, stays CRLF",
		files: tree("w", "a\r\nb\r\n"),
		patch: "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n",
		want:  tree("w", "a\r\nB\r\n"),
	}, {
		name:  "a diff sent with CRLF throughout is read as LF: added lines take the file's endings",
		files: tree("w", "a\nb\n"),
		patch: "--- a/w\r\n+++ b/w\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n",
		want:  tree("w", "a\nB\n"),
	}, {
		name:  "byte-order mark kept when the first line is replaced",
		files: tree("b", "\uFEFFfirst\nsecond\n"),
		patch: codexPatch("*** Update File: b", "@@", "-first", "+First"),
		want:  tree("b", "\uFEFFFirst\nsecond\n"),
	}, {
		name:  "bug: a diff whose removed first line has the byte-order mark and whose added one has not removes it",
		files: tree("b", "\uFEFFfirst\nsecond\n"),
		patch: "--- a/b\n+++ b/b\n@@ -1,2 +1,2 @@\n-\uFEFFfirst\n+first\n second\n",
		want:  tree("b", "first\nsecond\n"),
	}, {
		name:  "a diff that keeps the byte-order mark on its added first line keeps it",
		files: tree("b", "\uFEFFfirst\nsecond\n"),
		patch: "--- a/b\n+++ b/b\n@@ -1,2 +1,2 @@\n-\uFEFFfirst\n+\uFEFFFirst\n second\n",
		want:  tree("b", "\uFEFFFirst\nsecond\n"),
	}, {
		name:  "a Codex patch (written by a model) that drops the byte-order mark of its removed line keeps it",
		files: tree("b", "\uFEFFfirst\nsecond\n"),
		patch: codexPatch("*** Update File: b", "@@", "-\uFEFFfirst", "+First"),
		want:  tree("b", "\uFEFFFirst\nsecond\n"),
	}, {
		name:  "no final newline stays so",
		files: tree("f", "a\nb"),
		patch: codexPatch("*** Update File: f", "@@", "-a", "+A"),
		want:  tree("f", "A\nb"),
	}, {
		name:  "no final newline stays so after lines are added at the end",
		files: tree("f", "a\nb"),
		patch: codexPatch("*** Update File: f", "@@", " b", "+c"),
		want:  tree("f", "a\nb\nc"),
	}, {
		name:  "Codex End of File gives the file a final newline",
		files: tree("f", "a\nb"),
		patch: codexPatch("*** Update File: f", "@@", " a", "-b", "+B", "*** End of File"),
		want:  tree("f", "a\nB\n"),
	}, {
		name:  "unified: the new side without newline removes it",
		files: tree("f", "a\nb\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b", "+B", `\ No newline at end of file`),
		want:  tree("f", "a\nB"),
	}, {
		name:  "unified: the old side without newline adds it",
		files: tree("f", "a\nb"),
		patch: lines("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b", `\ No newline at end of file`, "+B"),
		want:  tree("f", "a\nB\n"),
	}, {
		name:  "a line without newline moved inward gets one",
		files: tree("f", "a"),
		patch: lines("--- a/f", "+++ b/f", "@@ -1 +1,2 @@", " a", `\ No newline at end of file`, "+b", `\ No newline at end of file`),
		want:  tree("f", "a\nb"),
	}, {
		name:  "an empty file gains lines with a final newline",
		files: tree("f", ""),
		patch: codexPatch("*** Update File: f", "@@", "+a"),
		want:  tree("f", "a\n"),
	}, {
		name:  "Codex hunk with only added lines goes at the end",
		files: tree("f", "a\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", "+c"),
		want:  tree("f", "a\nb\nc\n"),
	}, {
		name:  "Codex hunk with only added lines after an anchor goes after it",
		files: tree("a.py", "class A:\n  x = 1\nclass B:\n  y = 2\n"),
		patch: codexPatch("*** Update File: a.py", "@@ class A:", "+  z = 0"),
		want:  tree("a.py", "class A:\n  z = 0\n  x = 1\nclass B:\n  y = 2\n"),
	}})
}

func TestPlanOperations(t *testing.T) {
	runPlanCases(t, []planCase{{
		name:  "add, delete, update with a move",
		files: tree("old.txt", "x\n", "gone.txt", "bye\n"),
		patch: codexPatch("*** Add File: dir/new.txt", "+hello", "*** Delete File: gone.txt", "*** Update File: old.txt", "*** Move to: moved/renamed.txt", "@@", "-x", "+y"),
		want:  tree("dir/new.txt", "hello\n", "moved/renamed.txt", "y\n"),
	}, {
		name:  "move only",
		files: tree("a", "same\n"),
		patch: codexPatch("*** Update File: a", "*** Move to: b"),
		want:  tree("b", "same\n"),
	}, {
		name:  "unified deletion checks what it removes",
		files: tree("d", "a\nb\n"),
		patch: lines("--- a/d", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-a", "-b"),
		want:  tree(),
	},
		// Errors.
		{name: "add of an existing file", files: tree("a", "x\n"), patch: codexPatch("*** Add File: a", "+y"), kind: KindExists, msg: "add a: the file already exists"},
		{name: "delete of a missing file", files: tree(), patch: codexPatch("*** Delete File: a"), kind: KindMissing, msg: "delete a: the file does not exist"},
		{name: "update of a missing file", files: tree(), patch: codexPatch("*** Update File: a", "@@", "-x", "+y"), kind: KindMissing, msg: "update a: the file does not exist"},
		{name: "a path in two sections", files: tree("a", "x\n"), patch: codexPatch("*** Update File: a", "@@", "-x", "+y", "*** Delete File: a"), kind: KindDuplicate, msg: "a: named by file sections 1 and 2 of the patch"},
		{name: "a move onto a path of another section", files: tree("a", "x\n"), patch: codexPatch("*** Add File: b", "+z", "*** Update File: a", "*** Move to: b"), kind: KindDuplicate, msg: "b: named by file sections 1 and 2"},
		{name: "a move onto an existing file", files: tree("a", "x\n", "b", "y\n"), patch: codexPatch("*** Update File: a", "*** Move to: b"), kind: KindMoveExists, msg: "move a to b: the destination already exists"},
		{name: "unified deletion of a file that has more", files: tree("d", "a\nb\n"), patch: lines("--- a/d", "+++ /dev/null", "@@ -1 +0,0 @@", "-a"), kind: KindDeleteMismatch, msg: "delete d: the file has lines that the patch does not remove"},
		{name: "a hunk not at the end of the file", files: tree("f", "a\nb\nc\n"), patch: codexPatch("*** Update File: f", "@@", "-b", "+B", "*** End of File"), kind: KindNotFound, msg: "the lines are at line 2, but the hunk says they end the file"},
		{name: "hunks out of order", files: tree("f", "a\nb\nc\nd\n"), patch: codexPatch("*** Update File: f", "@@", "-c", "+C", "@@", "-a", "+A"), kind: KindNotFound, msg: "the lines are at line 1, before line 4 where the search started"},
		{name: "an anchor not found", files: tree("f", "a\n"), patch: codexPatch("*** Update File: f", "@@ nope", "-a", "+b"), kind: KindNotFound, msg: `f: hunk 1 (patch line 3): its @@ line "nope" was not found`},
		{name: "a unified hunk past the end", files: tree("f", "a\n"), patch: lines("--- a/f", "+++ b/f", "@@ -5,0 +6 @@", "+x"), kind: KindNotFound, msg: "adds lines after line 5, but the file has 1 lines"},
		{name: "a unified hunk that overlaps the previous one", files: tree("f", "a\nb\nc\n"), patch: lines("--- a/f", "+++ b/f", "@@ -2 +2 @@", "-b", "+B", "@@ -1,0 +2 @@", "+x"), kind: KindOverlap, msg: "would start at line 2, before the end of the previous hunk (line 2)"},
	})
}

func TestPlanAllOrNothing(t *testing.T) {
	p := mustParse(t, codexPatch(
		"*** Update File: good", "@@", "-a", "+b",
		"*** Update File: bad", "@@", "-missing", "+x",
		"*** Delete File: absent",
		"*** Update File: bad2", "@@", "-a", "+b", "@@", "-nope", "+y"))
	changes, err := p.Plan(mapReader(tree("good", "a\n", "bad", "a\n", "bad2", "a\n")))
	if changes != nil {
		t.Errorf("changes returned with an error: %v", changes)
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	if len(errs) != 3 {
		t.Fatalf("want 3 joined errors, got %v", err)
	}
	var he *HunkError
	var fe *FileError
	if !errors.As(errs[0], &he) || he.Path != "bad" || he.Hunk != 1 ||
		!errors.As(errs[1], &fe) || fe.Kind != KindMissing || fe.Path != "absent" ||
		!errors.As(errs[2], &he) || he.Path != "bad2" || he.Hunk != 2 {
		t.Errorf("errors: %v", err)
	}
	if KindOf(err) != KindNotFound {
		t.Errorf("KindOf = %q, want the first error's", KindOf(err))
	}
}

func TestPlanReadError(t *testing.T) {
	p := mustParse(t, codexPatch("*** Delete File: a"))
	boom := errors.New("permission denied")
	_, err := p.Plan(func(string) ([]byte, bool, error) { return nil, false, boom })
	if !errors.Is(err, boom) || KindOf(err) != KindRead || err.Error() != "read a: permission denied" {
		t.Errorf("error %v (kind %q)", err, KindOf(err))
	}
}

func TestPlanResults(t *testing.T) {
	p := mustParse(t, codexPatch(
		"*** Update File: f",
		"@@", " l2", "-l3", "+L3a", "+L3b",
		"@@", "-l6", "-l7",
		"@@", "+end",
		"*** Add File: n", "+x",
		"*** Delete File: d"))
	old := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
	changes, err := p.Plan(mapReader(tree("f", old, "d", "gone\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{
		Op: Update, Path: "f", Old: []byte(old), New: []byte("l1\nl2\nL3a\nL3b\nl4\nl5\nl8\nend\n"),
		Hunks: []HunkResult{
			{OldStart: 2, OldCount: 2, NewStart: 2, NewCount: 3},
			{OldStart: 6, OldCount: 2, NewStart: 7, NewCount: 0},
			{OldStart: 9, OldCount: 0, NewStart: 8, NewCount: 1},
		},
	}, {
		Op: Add, Path: "n", New: []byte("x\n"),
	}, {
		Op: Delete, Path: "d", Old: []byte("gone\n"),
	}}
	if !reflect.DeepEqual(changes, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(changes), dump(want))
	}
}

func TestHunkResultJSON(t *testing.T) {
	b, err := json.Marshal(struct {
		Op    Op
		Hunks []HunkResult
	}{Update, []HunkResult{{OldStart: 3, OldCount: 2, NewStart: 3, NewCount: 1, Level: LevelUnicode}}})
	want := `{"Op":"update","Hunks":[{"old_start":3,"old_count":2,"new_start":3,"new_count":1,"level":"unicode"}]}`
	if err != nil || string(b) != want {
		t.Errorf("got %s, %v\nwant %s", b, err, want)
	}
}

// BenchmarkPlanLargeFile applies 100 hunks to a 200,000-line file.
func BenchmarkPlanLargeFile(b *testing.B) {
	var file strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&file, "line %d\n", i)
	}
	body := []string{"*** Update File: f"}
	for i := 1000; i < 200000; i += 2000 {
		body = append(body, "@@", fmt.Sprintf(" line %d", i), fmt.Sprintf("-line %d", i+1), fmt.Sprintf("+LINE %d", i+1), fmt.Sprintf(" line %d", i+2))
	}
	p := mustParse(b, codexPatch(body...))
	files := tree("f", file.String())
	b.ResetTimer()
	for range b.N {
		if _, err := p.Plan(mapReader(files)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanAmbiguous refuses a one-line hunk that fits 100,000 places.
func BenchmarkPlanAmbiguous(b *testing.B) {
	p := mustParse(b, codexPatch("*** Update File: f", "@@", "-}", "+};"))
	files := tree("f", strings.Repeat("}\nx\n", 100000))
	b.ResetTimer()
	for range b.N {
		if _, err := p.Plan(mapReader(files)); KindOf(err) != KindAmbiguous {
			b.Fatal(err)
		}
	}
}
