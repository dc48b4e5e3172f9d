package patch

import (
	"bytes"
	"strings"
	"testing"
)

// TestGitModes checks that git's mode lines reach the changes: a new
// executable, a mode change with hunks, one without (which changes only
// the mode), and the modes this package refuses.
func TestGitModes(t *testing.T) {
	files := tree("s.sh", "a\n", "t.sh", "x\n")
	for _, tc := range []struct {
		name, diff string
		want       map[string]Exec // path -> Exec of its change
		kind       Kind
		msg        string
	}{{
		name: "bug: a new executable file",
		diff: lines("diff --git a/n.sh b/n.sh", "new file mode 100755", "index 0000000..1111111", "--- /dev/null", "+++ b/n.sh", "@@ -0,0 +1 @@", "+#!/bin/sh"),
		want: map[string]Exec{"n.sh": ExecSet},
	}, {
		name: "a new file of mode 100644 is as any new file",
		diff: lines("diff --git a/n.txt b/n.txt", "new file mode 100644", "--- /dev/null", "+++ b/n.txt", "@@ -0,0 +1 @@", "+x"),
		want: map[string]Exec{"n.txt": ExecKeep},
	}, {
		name: "bug: a mode change with a hunk",
		diff: lines("diff --git a/s.sh b/s.sh", "old mode 100644", "new mode 100755", "index 1..2", "--- a/s.sh", "+++ b/s.sh", "@@ -1 +1 @@", "-a", "+b"),
		want: map[string]Exec{"s.sh": ExecSet},
	}, {
		name: "bug: a mode change alone is a change (it was \"the patch changes no file\")",
		diff: lines("diff --git a/s.sh b/s.sh", "old mode 100644", "new mode 100755", "diff --git a/t.sh b/t.sh", "old mode 100755", "new mode 100644"),
		want: map[string]Exec{"s.sh": ExecSet, "t.sh": ExecClear},
	}, {
		name: "a symbolic link is refused, not written as a file holding its target",
		diff: lines("diff --git a/l b/l", "new file mode 120000", "--- /dev/null", "+++ b/l", "@@ -0,0 +1 @@", "+s.sh", `\ No newline at end of file`),
		kind: KindUnsupported,
		msg:  "patch line 2: symbolic links (mode 120000) are not supported",
	}, {
		name: "a submodule is refused",
		diff: lines("diff --git a/sub b/sub", "new mode 160000"),
		kind: KindUnsupported,
		msg:  "submodules",
	}, {
		name: "an unknown mode is refused",
		diff: lines("diff --git a/s.sh b/s.sh", "old mode 100644", "new mode 100777"),
		kind: KindSyntax,
		msg:  `unknown file mode "100777"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.diff)
			if tc.kind != "" {
				if err == nil || KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("Parse error %v (kind %q), want kind %q with %q", err, KindOf(err), tc.kind, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			changes, err := p.Plan(mapReader(files))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if len(changes) != len(tc.want) {
				t.Fatalf("%d changes, want %d", len(changes), len(tc.want))
			}
			for _, c := range changes {
				if c.Exec != tc.want[c.Path] {
					t.Errorf("%s: Exec %d, want %d", c.Path, c.Exec, tc.want[c.Path])
				}
				if c.Op == Update && len(c.Hunks) == 0 && !bytes.Equal(c.New, c.Old) {
					t.Errorf("%s: a mode change alone changed the content to %q", c.Path, c.New)
				}
			}
		})
	}
}
