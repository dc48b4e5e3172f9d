package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
)

func TestNearestPath(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "src/util.ts", "src/utils/", "src/main.go", "src/mian.go",
		"pkg/internal/wording/wording.go", "README.md", "docs/guide.md", "a b/c.txt")
	must(t, os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "lnk")))
	big := filepath.Join(root, "big")
	must(t, os.Mkdir(big, 0o755))
	for i := range nearestNames + 1 {
		must(t, os.WriteFile(filepath.Join(big, fmt.Sprintf("f%05d.txt", i)), nil, 0o644))
	}
	for _, tc := range []struct{ in, want string }{
		{"src/utl.ts", "src/util.ts"},
		{"pkg/internl/wording/wordng.go", "pkg/internal/wording/wording.go"}, // two names off
		{"pkg/internl/wordng/wordng.go", ""},                                 // three: too far from anything
		{"readme.md", "README.md"},                                           // case alone
		{"./docs/guid.md", "docs/guide.md"},
		{root + "/docs/gide.md", root + "/docs/guide.md"}, // absolute, inside the workspace
		{"lnk/utl.ts", "lnk/util.ts"},                     // through a link to a directory
		{"src/man.go", ""},                                // main.go and mian.go alike: no telling
		{"a c/c.txt", "a b/c.txt"},
		{"docs/guide.md", ""}, // it exists: nothing to correct
		{"nothing/like/it.go", ""},
		{"../outside.txt", ""},
		{"/etc/paswd", ""},
		{"big/f00001.tx", ""}, // a directory too large to look through
		{"", ""},
	} {
		if got := w.nearestPath(tc.in); got != tc.want {
			t.Errorf("nearestPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNotFoundSuggests runs the tools that report a missing path: their
// message names the nearest one, and grep says it in a hint.
func TestNotFoundSuggests(t *testing.T) {
	w, _ := newTestWorkspace(t, nil, "src/util.ts", "docs/")
	ctx := context.Background()
	for _, tc := range []struct{ tool, args, want string }{
		{ReadFile, `{"path":"src/utl.ts"}`, "File not found: src/utl.ts (did you mean src/util.ts?)"},
		{ListFiles, `{"path":"dcs"}`, "Directory not found: dcs (did you mean docs?)"},
		{FileStat, `{"path":"dcs"}`, "dcs: not found (did you mean docs?)"},
		{EditFile, `{"path":"src/Util.ts","old_string":"a","new_string":"b"}`, "File not found: src/Util.ts (did you mean src/util.ts?)"},
		{ReadFile, `{"path":"src/other.ts"}`, "File not found: src/other.ts"},
	} {
		_, _, err := w.Call(ctx, tc.tool, []byte(tc.args))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %s: %v, want %q", tc.tool, tc.args, err, tc.want)
		}
	}
	_, res, err := w.Call(ctx, Grep, []byte(`{"pattern":"x","path":"dcs"}`))
	if err != nil || !strings.Contains(res.Text(), "\nhint: dcs does not exist; did you mean docs?\n") {
		t.Errorf("grep of a missing path: %v, %v", res, err)
	}
}

// TestNearestTool names the offered tool a name no tool has most likely
// means, and none when nothing stands out.
func TestNearestTool(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	cfg := config.Default()
	cfg.Tools.PerTool[ReadFile] = config.Tool{Name: "view"}
	renamed, _ := newTestWorkspace(t, cfg)
	for _, tc := range []struct {
		w        *Workspace
		in, want string
	}{
		{w, "read_file", "mastra_workspace_read_file"},                 // without Mastra's prefix
		{w, "mastra_workspace_read_fil", "mastra_workspace_read_file"}, // a letter short
		{w, "read_fil", "mastra_workspace_read_file"},
		{w, "Mastra-Workspace-Read-File", "mastra_workspace_read_file"},
		{w, "MastraWorkspaceReadFile", "mastra_workspace_read_file"},
		{w, "functions.mastra_workspace_grep", "mastra_workspace_grep"}, // a shim's namespace
		{w, "default_api:mastra_workspace_grep", "mastra_workspace_grep"},
		{w, "exec", "mastra_workspace_execute_command"}, // the subcommand
		{w, "stat", "mastra_workspace_file_stat"},
		{w, "execute_command", "mastra_workspace_execute_command"},
		{renamed, "read_file", "view"}, // the name the config gives it
		{renamed, "View", "view"},
		{w, "nope", ""},
		{w, "list", ""},
		{w, "mastra_workspace_frobnicate", ""},
		{w, "", ""},
	} {
		if got := tc.w.nearestTool(tc.in); got != tc.want {
			t.Errorf("nearestTool(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
