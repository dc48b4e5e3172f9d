package workspace

import "strings"

// ID is the workspace's id: the config's, else 16 hex digits of the
// SHA-256 of the real root (the name of its default state directory).
func (w *Workspace) ID() string {
	if w.cfg.ID != "" {
		return w.cfg.ID
	}
	return hashHex(w.fs.RealBase(), 16)
}

// Name is the workspace's name: the config's, else Mastra's default,
// "workspace-" and the first 8 characters of the id.
func (w *Workspace) Name() string {
	if w.cfg.Name != "" {
		return w.cfg.Name
	}
	id := w.ID()
	return "workspace-" + id[:min(8, len(id))]
}

// StateDir is the workspace's state directory ("" when it has none).
func (w *Workspace) StateDir() string { return w.stateDir }

// IndexName is the vector index's name: searchIndexName, else Mastra's
// default, the id with "_search" and every other character than a letter,
// a digit or '_' made '_' (prefixed "ws_" when it would start with a digit).
func (w *Workspace) IndexName() string {
	if n := w.cfg.SearchIndexName; n != "" {
		return n
	}
	n := strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, w.ID()+"_search")
	if n[0] >= '0' && n[0] <= '9' {
		n = "ws_" + n
	}
	return n[:min(len(n), 63)]
}
