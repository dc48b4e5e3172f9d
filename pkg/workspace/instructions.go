package workspace

import (
	"strings"

	"github.com/wstools/ws/pkg/skills"
)

// Instructions describes the workspace for a model's system prompt, in
// Mastra's words for a local sandbox and a local filesystem (getInstructions),
// then, when skills are configured and any loads, the catalogue of skills
// and its guidance that Mastra's Agent adds as system messages (without it a
// model is offered the skill tools but never told a skill's name).
func (w *Workspace) Instructions() string {
	var parts []string
	if !w.cfg.Sandbox.Disabled {
		parts = append(parts, `Local command execution. Working directory: "`+w.base+`".`)
	}
	fs := []string{`Local filesystem at "` + w.base + `". Relative paths resolve from this directory.`}
	switch {
	case !w.fs.Contained():
		fs = append(fs, "Containment is disabled, so any path on the host filesystem is accessible.")
	case len(w.cfg.Filesystem.AllowedPaths) > 0:
		allowed, _ := w.fs.AllowedRoots()
		fs = append(fs, "File access is restricted to this directory and the following allowed paths: "+strings.Join(allowed, ", ")+".")
	default:
		fs = append(fs, "File access is restricted to this directory.")
	}
	parts = append(parts, strings.Join(fs, " "))
	if w.lacks(NeedSkills) == nil {
		set, err := w.discoverSkills()
		if err == nil {
			if c := skills.Catalog(set.List()); c != "" {
				parts = append(parts, c)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
