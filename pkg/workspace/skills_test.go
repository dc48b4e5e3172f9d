package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

func TestSkillsThroughTheChokepoint(t *testing.T) {
	cfg := config.Default()
	cfg.Skills = []string{"skills"}
	w, root := newTestWorkspace(t, cfg, "skills/x/references/")
	must(t, os.WriteFile(filepath.Join(root, "skills/x/SKILL.md"), []byte("---\nname: x\ndescription: d\n---\nX body\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "skills/x/references/r.md"), []byte("ref\n"), 0o644))
	outside := filepath.Join(t.TempDir(), "out.md")
	must(t, os.WriteFile(outside, []byte("outside\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "skills/x/references/leak.md")))
	ctx := context.Background()
	res, err := w.Skill(ctx, SkillRequest{Name: "x"})
	must(t, err)
	if !strings.HasPrefix(res.Text(), "X body\n\n## References\n- references/leak.md\n- references/r.md") {
		t.Fatalf("skill: %q", res.Text())
	}
	if _, err := w.SkillRead(ctx, SkillReadRequest{SkillName: "x", Path: "references/leak.md"}); errs.CodeOf(err) != errs.ENOENT {
		t.Fatalf("a link out of the workspace was read: %v", err)
	}
	if _, err := w.SkillRead(ctx, SkillReadRequest{SkillName: "x", Path: "../../etc/passwd"}); errs.CodeOf(err) != errs.OutsideWorkspace {
		t.Fatalf("traversal: %v", err)
	}
	if _, err := w.Skill(ctx, SkillRequest{Name: "y"}); errs.CodeOf(err) != errs.ENOENT {
		t.Fatalf("missing skill: %v", err)
	}
}
