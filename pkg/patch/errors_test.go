package patch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestErrorTexts pins the messages an agent reads, one per kind.
func TestErrorTexts(t *testing.T) {
	goFile := "package main\n\nfunc f() int {\n\tx := 1\n\treturn x+1\n}\n"
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		patch string
		kind  Kind
		want  string
	}{{
		name:  "syntax",
		patch: codexPatch("*** Update File: a", "@@", "-x", "oops"),
		kind:  KindSyntax,
		want:  `patch line 5: "oops" in a hunk of a: a hunk line starts with ' ' (context), '-' (remove) or '+' (add)`,
	}, {
		name:  "counts",
		patch: lines("--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b", "+c"),
		kind:  KindSyntax,
		want:  `patch line 3: the hunk header "@@ -1,3 +1,3 @@" counts 3 old and 3 new lines but the hunk has 2 and 2; fix the counts (or write a bare "@@" line to have them ignored)`,
	}, {
		name:  "bad path",
		patch: codexPatch("*** Add File: ../x", "+y"),
		kind:  KindBadPath,
		want:  `patch line 2: path "../x" has a ".." component; paths in a patch must stay inside the workspace`,
	}, {
		name:  "unsupported",
		patch: lines("diff --git a/i.png b/i.png", "Binary files a/i.png and b/i.png differ"),
		kind:  KindUnsupported,
		want:  `patch line 2: binary diffs are not supported`,
	}, {
		name:  "empty",
		patch: "*** Begin Patch\n*** End Patch\n",
		kind:  KindEmpty,
		want:  `patch: the patch changes no file`,
	}, {
		name:  "not found",
		files: tree("main.go", goFile),
		patch: codexPatch("*** Update File: main.go", "@@ func f() int {", " \tx := 1", "-\treturn x + 1", "+\treturn x + 2"),
		kind:  KindNotFound,
		want: "main.go: hunk 1 (patch line 3): its lines were not found at or after line 4\n" +
			"  closest match starts at line 4; line 5 differs:\n" +
			"    patch: \"\\treturn x + 1\"\n" +
			"    file:  \"\\treturn x+1\"",
	}, {
		name:  "bug: a long line that differs is quoted around the difference only",
		files: tree("min.js", "a\n"+strings.Repeat("x", 5000)+"1"+strings.Repeat("y", 5000)+"\n"),
		patch: codexPatch("*** Update File: min.js", "@@", " a", "-"+strings.Repeat("x", 5000)+"2"+strings.Repeat("y", 5000), "+z"),
		kind:  KindNotFound,
		want: "min.js: hunk 1 (patch line 3): its lines were not found\n" +
			"  closest match starts at line 1; line 2 differs:\n" +
			"    patch: …\"" + strings.Repeat("x", 40) + "2" + strings.Repeat("y", 119) + "\"…\n" +
			"    file:  …\"" + strings.Repeat("x", 40) + "1" + strings.Repeat("y", 119) + "\"…",
	}, {
		name:  "not found past the end",
		files: tree("f", "a\nb\n"),
		patch: codexPatch("*** Update File: f", "@@", " b", "-c", "+C"),
		kind:  KindNotFound,
		want: "f: hunk 1 (patch line 3): its lines were not found\n" +
			"  closest match starts at line 2; line 3 differs:\n" +
			"    patch: \"c\"\n" +
			"    file:  (end of file)",
	}, {
		name:  "not found out of order",
		files: tree("f", "a\nb\nc\n"),
		patch: codexPatch("*** Update File: f", "@@", "-c", "+C", "@@", "-a", "+A"),
		kind:  KindNotFound,
		want: "f: hunk 2 (patch line 6): its lines were not found at or after line 4\n" +
			"  the lines are at line 1, before line 4 where the search started (after the previous hunk); hunks must be in file order",
	}, {
		name:  "anchor not found",
		files: tree("f", "a\n"),
		patch: codexPatch("*** Update File: f", "@@ def g():", "-a", "+b"),
		kind:  KindNotFound,
		want:  `f: hunk 1 (patch line 3): its @@ line "def g():" was not found`,
	}, {
		name:  "ambiguous",
		files: tree("f", "}\n\n}\n"),
		patch: codexPatch("*** Update File: f", "@@", "-}", "+};"),
		kind:  KindAmbiguous,
		want:  "f: hunk 1 (patch line 3): matches 2 places (lines 1 and 3); add context lines or an @@ line naming the enclosing function or class so that it matches only one",
	}, {
		name:  "ambiguous in many places",
		files: tree("f", strings.Repeat("}\n", 12)),
		patch: codexPatch("*** Update File: f", "@@", "-}", "+};"),
		kind:  KindAmbiguous,
		want:  "f: hunk 1 (patch line 3): matches 12 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more); add context lines or an @@ line naming the enclosing function or class so that it matches only one",
	}, {
		name:  "overlap",
		files: tree("f", "a\nb\nc\n"),
		patch: lines("--- a/f", "+++ b/f", "@@ -2 +2 @@", "-b", "+B", "@@ -1,0 +2 @@", "+x"),
		kind:  KindOverlap,
		want:  "f: hunk 2 (patch line 6): would start at line 2, before the end of the previous hunk (line 2); hunks must be in file order and must not overlap",
	}, {
		name:  "exists",
		files: tree("a", ""),
		patch: codexPatch("*** Add File: a", "+x"),
		kind:  KindExists,
		want:  "add a: the file already exists; update it instead, or delete it first",
	}, {
		name:  "missing",
		patch: codexPatch("*** Update File: a", "@@", "-x", "+y"),
		kind:  KindMissing,
		want:  "update a: the file does not exist",
	}, {
		name:  "duplicate",
		files: tree("a", "x\n"),
		patch: codexPatch("*** Delete File: a", "*** Add File: b", "+x", "*** Add File: a", "+y"),
		kind:  KindDuplicate,
		want:  "a: named by file sections 1 and 3 of the patch; a path may appear in only one section, so merge them",
	}, {
		name:  "move exists",
		files: tree("a", "x\n", "b", "y\n"),
		patch: codexPatch("*** Update File: a", "*** Move to: b"),
		kind:  KindMoveExists,
		want:  "move a to b: the destination already exists",
	}, {
		name:  "delete mismatch",
		files: tree("d", "a\nb\n"),
		patch: lines("--- a/d", "+++ /dev/null", "@@ -1 +0,0 @@", "-a"),
		kind:  KindDeleteMismatch,
		want:  "delete d: the file has lines that the patch does not remove; it changed since the diff was made",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.patch)
			if err == nil {
				_, err = p.Plan(mapReader(tc.files))
			}
			if err == nil {
				t.Fatal("no error")
			}
			if KindOf(err) != tc.kind {
				t.Errorf("KindOf = %q, want %q", KindOf(err), tc.kind)
			}
			if err.Error() != tc.want {
				t.Errorf("message:\n%s\nwant:\n%s", err, tc.want)
			}
		})
	}
}

func TestKindOf(t *testing.T) {
	if k := KindOf(errors.New("other")); k != "" {
		t.Errorf("KindOf(other) = %q", k)
	}
	joined := errors.Join(errors.New("context"), &FileError{Kind: KindExists}, &HunkError{Kind: KindAmbiguous})
	if k := KindOf(fmt.Errorf("wrapped: %w", joined)); k != KindExists {
		t.Errorf("KindOf of a wrapped join = %q, want the first of ours", k)
	}
	if k := KindOf(&HunkError{Kind: KindAmbiguous}); k != KindAmbiguous {
		t.Errorf("KindOf = %q", k)
	}
}

// TestClipCutsWholeCharacters: a long patch line quoted in an error is cut
// at 120 bytes without splitting a UTF-8 character.
func TestClipCutsWholeCharacters(t *testing.T) {
	got := clip("a" + strings.Repeat("é", 100))
	if !strings.HasSuffix(got, "...") || len(got) > 123 || !utf8.ValidString(got) {
		t.Fatalf("clip = %q (%d bytes)", got, len(got))
	}
}
