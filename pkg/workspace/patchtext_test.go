package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/patch"
)

// TestPatchText checks the text a patch prints: where each file's hunks
// landed and which needed leniency, bounded so that a patch of a thousand
// hunks or files does not print a line of 16 KB (QA D13).
func TestPatchText(t *testing.T) {
	hunks := func(n int, lv patch.Level) []patch.HunkResult {
		var hs []patch.HunkResult
		for i := range n {
			hs = append(hs, patch.HunkResult{NewStart: 10*i + 1, NewCount: 3, Level: lv})
		}
		return hs
	}
	files := func(n int) []PatchedFile {
		var fs []PatchedFile
		for i := range n {
			fs = append(fs, PatchedFile{Op: "update", Path: Bytes(fmt.Sprintf("dir/file%04d.txt", i)), Hunks: hunks(1, patch.LevelExact)})
		}
		return fs
	}
	for _, tc := range []struct {
		name  string
		files []PatchedFile
		want  string // the whole text, or with a "…" suffix its start
		end   string // what the text ends with, when set
	}{{
		name:  "one hunk",
		files: []PatchedFile{{Op: "update", Path: Bytes("a.go"), Hunks: hunks(1, patch.LevelExact)}},
		want:  "Applied the patch: 1 file\nM a.go (lines 1-3)",
	}, {
		name:  "one hunk found with leniency",
		files: []PatchedFile{{Op: "update", Path: Bytes("a.go"), Hunks: hunks(1, patch.LevelTrailingWhitespace)}},
		want:  "Applied the patch: 1 file\nM a.go (lines 1-3; found ignoring trailing whitespace)",
	}, {
		name: "hunks at two levels",
		files: []PatchedFile{{Op: "update", Path: Bytes("a.go"), Hunks: []patch.HunkResult{
			{NewStart: 1, NewCount: 1}, {NewStart: 5, NewCount: 2, Level: patch.LevelWhitespace},
			{NewStart: 9, NewCount: 1, Level: patch.LevelUnicode}, {NewStart: 12, NewCount: 1, Level: patch.LevelWhitespace}}}},
		want: "Applied the patch: 1 file\nM a.go (lines 1, 5-6, 9, 12; hunks 2 and 4 found ignoring whitespace at both ends of lines; hunk 3 ignoring whitespace and Unicode punctuation)",
	}, {
		name:  "bug: 995 hunks: 20 listed, the rest counted",
		files: []PatchedFile{{Op: "update", Path: Bytes("big.txt"), Hunks: hunks(995, patch.LevelExact)}},
		want:  "Applied the patch: 1 file\nM big.txt (lines 1-3, 11-13, 21-23, 31-33, 41-43, 51-53, 61-63, 71-73, 81-83, 91-93, 101-103, 111-113, 121-123, 131-133, 141-143, 151-153, 161-163, 171-173, 181-183, 191-193 (and 975 more hunks))",
	}, {
		name:  "bug: 995 lenient hunks: their numbers are bounded too",
		files: []PatchedFile{{Op: "update", Path: Bytes("big.txt"), Hunks: hunks(995, patch.LevelUnicode)}},
		want:  "Applied the patch: 1 file\nM big.txt (lines 1-3, …",
		end:   "(and 975 more hunks); hunks 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 975 more found ignoring whitespace and Unicode punctuation)",
	}, {
		name:  "bug: 2000 files: the list stops at the token budget and says how many are left",
		files: files(2000),
		want:  "Applied the patch: 2000 files\nM dir/file0000.txt (lines 1-3)\nM dir/file0001.txt (lines 1-3)…",
		end:   " more files not listed: the list is cut at ~2000 tokens)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := patchText(&PatchResult{Files: tc.files}, 2000)
			if start, ok := strings.CutSuffix(tc.want, "…"); ok {
				if !strings.HasPrefix(got, start) {
					t.Errorf("text starts\n%.300q\nwant\n%q", got, start)
				}
			} else if got != tc.want {
				t.Errorf("text\n%q\nwant\n%q", got, tc.want)
			}
			if !strings.HasSuffix(got, tc.end) {
				t.Errorf("text ends\n%q\nwant\n%q", got[max(0, len(got)-300):], tc.end)
			}
			if len(got) > 12000 {
				t.Errorf("text is %d bytes", len(got))
			}
		})
	}
}
