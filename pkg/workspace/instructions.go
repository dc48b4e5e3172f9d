package workspace

import "strings"

// Instructions describes the workspace for a model's system prompt, in
// Mastra's words for a local sandbox and a local filesystem (getInstructions).
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
	return strings.Join(parts, "\n\n")
}
