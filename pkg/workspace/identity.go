package workspace

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
