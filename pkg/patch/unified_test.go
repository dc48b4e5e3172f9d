package patch

import "testing"

func TestParseUnified(t *testing.T) {
	runParseCases(t, FormatUnified, []parseCase{{
		name: "diff -ruN: a file on one side only has the epoch's time (in any zone): an add, a delete",
		text: lines("diff -ruN o/g.txt n/g.txt", "--- o/g.txt\t1970-01-01 00:00:00.000000000 +0000", "+++ n/g.txt\t2026-12-03 09:28:10.373273094 +0000", "@@ -0,0 +1 @@", "+new",
			"diff -ruN o/h.txt n/h.txt", "--- o/h.txt\t2026-12-03 09:28:10 +0100", "+++ n/h.txt\t1969-12-31 19:00:00 -0500", "@@ -1 +0,0 @@", "-old"),
		files: []FilePatch{{Op: Add, Path: "g.txt", PatchLine: 2, Content: []byte("new\n")},
			{Op: Delete, Path: "h.txt", PatchLine: 7, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 0, NewCount: 0, PatchLine: 9, Lines: []Line{del("old")}}}}},
	}, {
		name:  "a file whose time is the epoch, with lines on both sides, is an update",
		text:  lines("--- f.txt\t1970-01-01 00:00:00.000000000 +0000", "+++ f.txt\t1970-01-01 00:00:00.000000000 +0000", "@@ -1 +1 @@", "-y", "+Z"),
		files: []FilePatch{{Op: Update, Path: "f.txt", PatchLine: 1, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 3, Lines: []Line{del("y"), ins("Z")}}}}},
	}, {
		name:  "bug: diff -ruN old new: directory prefixes other than a/ and b/ are stripped when the names differ only in them",
		text:  lines("diff -ruN o/sub/f.txt n/sub/f.txt", "--- o/sub/f.txt\t2026-12-03 09:00:00.000000000 +0000", "+++ n/sub/f.txt\t2026-12-03 09:00:01.000000000 +0000", "@@ -1,2 +1,2 @@", " x", "-y", "+Z"),
		files: []FilePatch{{Op: Update, Path: "sub/f.txt", PatchLine: 2, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2, PatchLine: 4, Lines: []Line{ctx("x"), del("y"), ins("Z")}}}}},
	}, {
		name:  "git diff --no-prefix of one file keeps its path",
		text:  lines("--- src/f.txt", "+++ src/f.txt", "@@ -1 +1 @@", "-y", "+Z"),
		files: []FilePatch{{Op: Update, Path: "src/f.txt", PatchLine: 1, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 3, Lines: []Line{del("y"), ins("Z")}}}}},
	}, {
		name:  "bug: a byte-order mark before a diff is dropped",
		text:  "\ufeff" + lines("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b"),
		files: []FilePatch{{Op: Update, Path: "f", PatchLine: 1, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 3, Lines: []Line{del("a"), ins("b")}}}}},
	}, {
		name: "git diff with a function name after the range",
		text: lines(
			"diff --git a/src/a.go b/src/a.go",
			"index 83db48f..bf269f4 100644",
			"--- a/src/a.go",
			"+++ b/src/a.go",
			"@@ -10,3 +10,4 @@ func main() {",
			" one",
			"-two",
			"+2",
			"+2.5",
			" three",
			"@@ -20 +21 @@",
			"-x",
			"+y"),
		files: []FilePatch{{Op: Update, Path: "src/a.go", PatchLine: 1, Hunks: []Hunk{
			{HasRange: true, OldStart: 10, OldCount: 3, NewStart: 10, NewCount: 4, PatchLine: 5,
				Lines: []Line{ctx("one"), del("two"), ins("2"), ins("2.5"), ctx("three")}},
			{HasRange: true, OldStart: 20, OldCount: 1, NewStart: 21, NewCount: 1, PatchLine: 11,
				Lines: []Line{del("x"), ins("y")}},
		}}},
	}, {
		name: "new, deleted and renamed files in one diff",
		text: lines(
			"diff --git a/new.txt b/new.txt",
			"new file mode 100644",
			"index 0000000..ce01362",
			"--- /dev/null",
			"+++ b/new.txt",
			"@@ -0,0 +1,2 @@",
			"+hello",
			"+world",
			"diff --git a/old.txt b/old.txt",
			"deleted file mode 100644",
			"--- a/old.txt",
			"+++ /dev/null",
			"@@ -1 +0,0 @@",
			"-bye",
			"diff --git a/d/x.txt b/e/y.txt",
			"similarity index 90%",
			"rename from d/x.txt",
			"rename to e/y.txt",
			"--- a/d/x.txt",
			"+++ b/e/y.txt",
			"@@ -1 +1 @@",
			"-a",
			"+b",
			"diff --git a/p q b/p q",
			"similarity index 100%",
			"rename from p q",
			"rename to r s",
			"diff --git a/empty b/empty",
			"new file mode 100644",
			"index 0000000..e69de29"),
		files: []FilePatch{
			{Op: Add, Path: "new.txt", Content: []byte("hello\nworld\n"), PatchLine: 1},
			{Op: Delete, Path: "old.txt", PatchLine: 9, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 0, NewCount: 0, PatchLine: 13, Lines: []Line{del("bye")}}}},
			{Op: Update, Path: "d/x.txt", MoveTo: "e/y.txt", PatchLine: 15, Hunks: []Hunk{{HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 21, Lines: []Line{del("a"), ins("b")}}}},
			{Op: Update, Path: "p q", MoveTo: "r s", PatchLine: 24},
			{Op: Add, Path: "empty", Content: []byte{}, PatchLine: 28}},
	}, {
		name: "no newline markers",
		text: lines(
			"--- a/f", "+++ b/f",
			"@@ -1,2 +1,2 @@",
			" a",
			"-b",
			`\ No newline at end of file`,
			"+B"),
		files: []FilePatch{{Op: Update, Path: "f", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2, PatchLine: 3,
			EndOfFile: true, Newline: AddNewline,
			Lines: []Line{ctx("a"), del("b"), ins("B")},
		}}}},
	}, {
		name: "no newline on a context line (both sides)",
		text: lines("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", "-a", "+A", " b", `\ No newline at end of file`),
		files: []FilePatch{{Op: Update, Path: "f", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2, PatchLine: 3,
			EndOfFile: true, Newline: DropNewline,
			Lines: []Line{del("a"), ins("A"), ctx("b")},
		}}}},
	}, {
		name:  "new file without final newline",
		text:  lines("--- /dev/null", "+++ b/f", "@@ -0,0 +1,2 @@", "+a", "+b", `\ No newline at end of file`),
		files: []FilePatch{{Op: Add, Path: "f", Content: []byte("a\nb"), PatchLine: 1}},
	}, {
		name: "diff -u with timestamps, and a removed line that looks like a header",
		text: lines(
			"--- f.sql\t2024-01-01 10:00:00.000000000 +0000",
			"+++ f.sql\t2024-01-02 10:00:00.000000000 +0000",
			"@@ -1,2 +1,2 @@",
			"--- a comment",
			"+++ another",
			" select 1;"),
		files: []FilePatch{{Op: Update, Path: "f.sql", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2, PatchLine: 3,
			Lines: []Line{del("-- a comment"), ins("++ another"), ctx("select 1;")},
		}}}},
	}, {
		name: "an empty context line that lost its space",
		text: lines("--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "", "-b", "+c"),
		files: []FilePatch{{Op: Update, Path: "f", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 3, NewStart: 1, NewCount: 3, PatchLine: 3,
			Lines: []Line{ctx("a"), ctx(""), del("b"), ins("c")},
		}}}},
	}, {
		name: "bare @@ headers run to the next header",
		text: lines("--- a/f", "+++ b/f", "@@", " a", "-b", "+c", "", "@@ ... @@", "-d", "+e", "", "--- a/g", "+++ b/g", "@@ @@", "-x", "+y"),
		files: []FilePatch{
			{Op: Update, Path: "f", PatchLine: 1, Hunks: []Hunk{
				{PatchLine: 3, Lines: []Line{ctx("a"), del("b"), ins("c")}},
				{PatchLine: 8, Lines: []Line{del("d"), ins("e")}},
			}},
			{Op: Update, Path: "g", PatchLine: 12, Hunks: []Hunk{{PatchLine: 14, Lines: []Line{del("x"), ins("y")}}}}},
	}, {
		name: "quoted names",
		text: lines(`diff --git "a/caf\303\251 \"x\".txt" "b/caf\303\251 \"x\".txt"`, `--- "a/caf\303\251 \"x\".txt"`, `+++ "b/caf\303\251 \"x\".txt"`, "@@ -1 +1 @@", "-x", "+y"),
		files: []FilePatch{{Op: Update, Path: "café \"x\".txt", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 4, Lines: []Line{del("x"), ins("y")}}}}},
	}, {
		name: "format-patch mail around the diff",
		text: lines(
			"From 1234 Mon Sep 17 00:00:00 2001",
			"Subject: [PATCH] fix",
			"",
			"---",
			" f | 2 +-",
			"",
			"diff --git a/f b/f",
			"--- a/f",
			"+++ b/f",
			"@@ -1 +1 @@",
			"-a",
			"+b",
			"-- ",
			"2.39.5"),
		files: []FilePatch{{Op: Update, Path: "f", PatchLine: 7, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 10, Lines: []Line{del("a"), ins("b")}}}}},
	}, {
		name: "CR kept on the lines of a CRLF file",
		text: "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n",
		files: []FilePatch{{Op: Update, Path: "w", PatchLine: 1, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2, PatchLine: 3, Lines: []Line{ctx("one\r"), del("two\r"), ins("2\r")}}}}},
	}, {
		name: "bug: a mode change only is an update without hunks (it was skipped)",
		text: lines("diff --git a/x b/x", "old mode 100644", "new mode 100755", "diff --git a/y b/y", "--- a/y", "+++ b/y", "@@ -1 +1 @@", "-a", "+b"),
		files: []FilePatch{{Op: Update, Path: "x", PatchLine: 1, Exec: ExecSet}, {Op: Update, Path: "y", PatchLine: 4, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 7, Lines: []Line{del("a"), ins("b")}}}}},
	}, {
		name: "a mode line that names the same mode changes nothing",
		text: lines("diff --git a/x b/x", "old mode 100644", "new mode 100644", "diff --git a/y b/y", "--- a/y", "+++ b/y", "@@ -1 +1 @@", "-a", "+b"),
		files: []FilePatch{{Op: Update, Path: "y", PatchLine: 4, Hunks: []Hunk{{
			HasRange: true, OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1, PatchLine: 7, Lines: []Line{del("a"), ins("b")}}}}},
	},
		// Errors.
		{name: "too few lines for the counts", text: lines("--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b", "+c"), kind: KindSyntax, line: 3, msg: "counts 3 old and 3 new lines but the hunk has 2 and 2"},
		{name: "too few lines before the next file", text: lines("--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b", "+c", "diff --git a/g b/g"), kind: KindSyntax, line: 3, msg: "counts 3 old and 3 new lines but the hunk has 2 and 2"},
		{name: "too many lines for the counts", text: lines("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b", "+c", " d", " e"), kind: KindSyntax, line: 3, msg: "counts 2 old and 2 new lines but the hunk has 4 and 4"},
		{name: "a side over its count", text: lines("--- a/f", "+++ b/f", "@@ -1 +1,2 @@", "-a", "-b", "+c"), kind: KindSyntax, line: 3, msg: "counts 1 old and 2 new lines but the hunk has 2 and 1"},
		{name: "huge line number", text: lines("--- a/f", "+++ b/f", "@@ -99999999999 +1 @@", "-a", "+b"), kind: KindSyntax, line: 3, msg: "too large"},
		{name: "bad hunk header", text: lines("--- a/f", "+++ b/f", "@@ -x +y @@", "-a"), kind: KindSyntax, line: 3, msg: "bad hunk header"},
		{name: "hunk before any file", text: lines("@@ -1 +1 @@", "-a", "+b"), kind: KindSyntax, line: 1, msg: "hunk outside a file"},
		{name: "hunk after a stray line", text: lines("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b", "stray", "@@ -3 +3 @@", "-c", "+d"), kind: KindSyntax, line: 7, msg: "hunk outside a file"},
		{name: "no newline marker in the middle", text: lines("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", "-a", `\ No newline at end of file`, "-b", "+c", "+d"), kind: KindSyntax, line: 3, msg: "not the last of its side"},
		{name: "bug: names that differ in their first directory only, outside diff -r's output, say so", text: lines("--- o/sub/f.txt", "+++ n/sub/f.txt", "@@ -1 +1 @@", "-a", "+b"), kind: KindSyntax, line: 1, msg: `the diff names "o/sub/f.txt" and "n/sub/f.txt", which differ only in their first directory: ws drops only a/ and b/`},
		{name: "names differ without rename", text: lines("--- a/f", "+++ b/g", "@@ -1 +1 @@", "-a", "+b"), kind: KindSyntax, line: 1, msg: `names two files, "f" and "g"`},
		{name: "binary", text: lines("diff --git a/i.png b/i.png", "index 1..2 100644", "Binary files a/i.png and b/i.png differ"), kind: KindUnsupported, line: 3, msg: "binary"},
		{name: "copy", text: lines("diff --git a/a b/b", "similarity index 100%", "copy from a", "copy to b"), kind: KindUnsupported, line: 3, msg: "copies"},
		{name: "context in a new file", text: lines("--- /dev/null", "+++ b/f", "@@ -1 +1,2 @@", "+a", " b"), kind: KindSyntax, line: 3, msg: "does not start with '+'"},
		{name: "absolute path", text: lines("--- /etc/passwd", "+++ /etc/passwd", "@@ -1 +1 @@", "-a", "+b"), kind: KindBadPath, line: 1, msg: "is absolute"},
		{name: "dot-dot path", text: lines("--- a/../x", "+++ b/../x", "@@ -1 +1 @@", "-a", "+b"), kind: KindBadPath, line: 1, msg: `".." component`},
		{name: "hunk of context only", text: lines("--- a/f", "+++ b/f", "@@ -1 +1 @@", " a"), kind: KindSyntax, line: 3, msg: "changes nothing"},
		{name: "file header without hunks", text: lines("--- a/f", "+++ b/f", "nothing"), kind: KindSyntax, line: 1, msg: "no hunks"},
	})
}
