package patch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// lines joins its arguments with "\n" and ends them with one.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func ctx(s string) Line { return Line{Kind: Context, Text: s} }
func del(s string) Line { return Line{Kind: Remove, Text: s} }
func ins(s string) Line { return Line{Kind: Insert, Text: s} }

type parseCase struct {
	name  string
	text  string
	files []FilePatch // what the patch parses to, in the format of its test
	// For errors: the kind, the line, and a part of the message.
	kind Kind
	line int
	msg  string
}

// runParseCases parses each case's text: a patch of format with its
// files, or the error it describes.
func runParseCases(t *testing.T, format string, cases []parseCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.text)
			if tc.kind != "" {
				var pe *ParseError
				if err == nil {
					t.Fatalf("Parse succeeded, want a %s error:\n%s", tc.kind, dump(got))
				}
				if !asParseError(err, &pe) || pe.Kind != tc.kind || pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
					t.Fatalf("error %#v\nwant kind %s, line %d, message with %q", err, tc.kind, tc.line, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if want := (&Patch{Format: format, Files: tc.files}); !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
			}
		})
	}
}

func asParseError(err error, pe **ParseError) bool {
	e, ok := err.(*ParseError)
	*pe = e
	return ok
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func TestParseCodex(t *testing.T) {
	runParseCases(t, FormatCodex, []parseCase{{
		name:  "bug: a byte-order mark before the patch is dropped",
		text:  "\ufeff" + lines("*** Begin Patch", "*** Add File: bom.txt", "+x", "*** End Patch"),
		files: []FilePatch{{Op: Add, Path: "bom.txt", Content: []byte("x\n"), PatchLine: 2}},
	}, {
		name:  "bug: a byte-order mark before a CRLF patch is dropped",
		text:  "\ufeff*** Begin Patch\r\n*** Add File: bom.txt\r\n+x\r\n*** End Patch\r\n",
		files: []FilePatch{{Op: Add, Path: "bom.txt", Content: []byte("x\n"), PatchLine: 2}},
	}, {
		name: "all operations",
		text: lines(
			"*** Begin Patch",
			"*** Add File: hello.txt",
			"+Hello world",
			"*** Update File: src/app.py",
			"*** Move to: src/main.py",
			"@@ def greet():",
			`-print("Hi")`,
			`+print("Hello, world!")`,
			"*** Delete File: obsolete.txt",
			"*** End Patch"),
		files: []FilePatch{
			{Op: Add, Path: "hello.txt", Content: []byte("Hello world\n"), PatchLine: 2},
			{Op: Update, Path: "src/app.py", MoveTo: "src/main.py", PatchLine: 4, Hunks: []Hunk{{
				Anchors: []string{"def greet():"}, PatchLine: 6,
				Lines: []Line{del(`print("Hi")`), ins(`print("Hello, world!")`)},
			}}},
			{Op: Delete, Path: "obsolete.txt", PatchLine: 9}},
	}, {
		name:  "missing End Patch",
		text:  lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "+y"),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{PatchLine: 3, Lines: []Line{del("x"), ins("y")}}}}},
	}, {
		name:  "missing Begin Patch",
		text:  lines("*** Delete File: a", "*** End Patch"),
		files: []FilePatch{{Op: Delete, Path: "a", PatchLine: 1}},
	}, {
		name:  "heredoc with quoted delimiter",
		text:  lines("<<'EOF'", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "EOF"),
		files: []FilePatch{{Op: Delete, Path: "a", PatchLine: 3}},
	}, {
		name:  "heredoc with the command and a double-quoted delimiter",
		text:  lines(`apply_patch <<"PATCH"`, "*** Begin Patch", "*** Delete File: a", "*** End Patch", "PATCH"),
		files: []FilePatch{{Op: Delete, Path: "a", PatchLine: 3}},
	}, {
		name:  "heredoc without quotes and without its end",
		text:  lines("<<EOF", "*** Begin Patch", "*** Delete File: a", "*** End Patch"),
		files: []FilePatch{{Op: Delete, Path: "a", PatchLine: 3}},
	}, {
		name:  "markdown fence",
		text:  lines("", "```diff", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "```", ""),
		files: []FilePatch{{Op: Delete, Path: "a", PatchLine: 4}},
	}, {
		name:  "CRLF transport",
		text:  strings.ReplaceAll(lines("*** Begin Patch", "*** Add File: a", "+x", "*** End Patch"), "\n", "\r\n"),
		files: []FilePatch{{Op: Add, Path: "a", Content: []byte("x\n"), PatchLine: 2}},
	}, {
		name:  "padded markers",
		text:  lines(" *** Begin Patch", "  *** Update File: a ", "@@", "-x", "+y", " *** End Patch", ""),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{PatchLine: 3, Lines: []Line{del("x"), ins("y")}}}}},
	}, {
		name: "blank lines between sections and hunks, and inside a hunk",
		text: lines(
			"*** Begin Patch",
			"",
			"*** Update File: a",
			"",
			"@@ func f() {",
			" one",
			"",
			"-two",
			"+2",
			"",
			"@@",
			"-three",
			"+3",
			"",
			"*** Delete File: b",
			"",
			"*** End Patch"),
		files: []FilePatch{
			{Op: Update, Path: "a", PatchLine: 3, Hunks: []Hunk{
				{Anchors: []string{"func f() {"}, PatchLine: 5, Lines: []Line{ctx("one"), ctx(""), del("two"), ins("2")}},
				{PatchLine: 11, Lines: []Line{del("three"), ins("3")}},
			}},
			{Op: Delete, Path: "b", PatchLine: 15}},
	}, {
		name:  "first hunk without @@",
		text:  lines("*** Begin Patch", "*** Update File: a", " import foo", "+bar", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{PatchLine: 3, Lines: []Line{ctx("import foo"), ins("bar")}}}}},
	}, {
		name: "several @@ anchors for one hunk",
		text: lines("*** Begin Patch", "*** Update File: a.py", "@@ class Base:", "@@     def run(self):", "-        pass", "+        return 1", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a.py", PatchLine: 2, Hunks: []Hunk{{
			Anchors: []string{"class Base:", "    def run(self):"}, PatchLine: 3,
			Lines: []Line{del("        pass"), ins("        return 1")},
		}}}},
	}, {
		name:  "a unified range on the @@ line is no anchor",
		text:  lines("*** Begin Patch", "*** Update File: a", "@@ -1,2 +1,2 @@ func f()", "-x", "+y", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{PatchLine: 3, Lines: []Line{del("x"), ins("y")}}}}},
	}, {
		name: "End of File",
		text: lines("*** Begin Patch", "*** Update File: a", "@@", " first", "-second", "+second updated", "*** End of File", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{
			PatchLine: 3, EndOfFile: true, Newline: AddNewline,
			Lines: []Line{ctx("first"), del("second"), ins("second updated")},
		}}}},
	}, {
		name: "add with blank lines between + lines, and an empty add",
		text: lines("*** Begin Patch", "*** Add File: a", "+x", "", "+y", "", "*** Add File: b", "*** End Patch"),
		files: []FilePatch{
			{Op: Add, Path: "a", Content: []byte("x\n\ny\n"), PatchLine: 2},
			{Op: Add, Path: "b", Content: []byte{}, PatchLine: 7}},
	}, {
		name:  "pure rename",
		text:  lines("*** Begin Patch", "*** Update File: ./a//b", "*** Move to: c/d", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a/b", MoveTo: "c/d", PatchLine: 2}},
	}, {
		name:  "a context line that looks like a marker",
		text:  lines("*** Begin Patch", "*** Update File: a", "@@", " *** not a header", "-x", "+y", "*** End Patch"),
		files: []FilePatch{{Op: Update, Path: "a", PatchLine: 2, Hunks: []Hunk{{PatchLine: 3, Lines: []Line{ctx("*** not a header"), del("x"), ins("y")}}}}},
	},
		// Errors.
		{name: "empty", text: "\n  \n", kind: KindEmpty, msg: "empty"},
		{name: "empty envelope", text: lines("*** Begin Patch", "*** End Patch"), kind: KindEmpty, msg: "changes no file"},
		{name: "not a patch", text: "hello\n", kind: KindSyntax, line: 1, msg: "not a patch"},
		{name: "update without hunks", text: lines("*** Begin Patch", "*** Update File: a", "*** End Patch"), kind: KindSyntax, line: 2, msg: "has no hunks"},
		{name: "bad hunk line", text: lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "oops", "*** End Patch"), kind: KindSyntax, line: 5, msg: `"oops" in a hunk of a`},
		{name: "@@ with nothing under it", text: lines("*** Begin Patch", "*** Update File: a", "@@ f", "*** End Patch"), kind: KindSyntax, line: 3, msg: "no hunk lines"},
		{name: "hunk that changes nothing", text: lines("*** Begin Patch", "*** Update File: a", "@@", " x", "*** End Patch"), kind: KindSyntax, line: 3, msg: "changes nothing"},
		{name: "hunk after End of File", text: lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "*** End of File", "@@", "-y", "*** End Patch"), kind: KindSyntax, line: 6, msg: "after \"*** End of File\" (line 5)"},
		{name: "End of File with no lines", text: lines("*** Begin Patch", "*** Update File: a", "@@", "*** End of File", "*** End Patch"), kind: KindSyntax, line: 4, msg: "must follow"},
		{name: "add without +", text: lines("*** Begin Patch", "*** Add File: a", "+x", "y", "*** End Patch"), kind: KindSyntax, line: 4, msg: "every line of an added file starts with '+'"},
		{name: "text after End Patch", text: lines("*** Begin Patch", "*** Delete File: a", "*** End Patch", "*** Delete File: b", "*** End Patch"), kind: KindSyntax, line: 4, msg: "text after"},
		{name: "absolute path", text: lines("*** Begin Patch", "*** Delete File: /etc/passwd", "*** End Patch"), kind: KindBadPath, line: 2, msg: "is absolute"},
		{name: "Windows absolute path", text: lines("*** Begin Patch", `*** Delete File: C:\x`, "*** End Patch"), kind: KindBadPath, line: 2, msg: "is absolute"},
		{name: "dot-dot path", text: lines("*** Begin Patch", "*** Add File: a/../../b", "+x", "*** End Patch"), kind: KindBadPath, line: 2, msg: `".." component`},
		{name: "dot-dot move", text: lines("*** Begin Patch", "*** Update File: a", "*** Move to: ../b", "*** End Patch"), kind: KindBadPath, line: 3, msg: `".." component`},
		{name: "line numbers count the heredoc", text: lines("<<'EOF'", "*** Begin Patch", "*** Bogus", "*** End Patch", "EOF"), kind: KindSyntax, line: 3, msg: "expected a file header"},
	})
}
