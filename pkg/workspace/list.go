package workspace

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/listing"
)

// ListEntry is one shown entry of a listing.
type ListEntry struct {
	Path   Bytes  `json:"path"` // relative to the listed directory; {"bytes": base64} when not UTF-8
	Type   string `json:"type"` // file, directory
	Depth  int    `json:"depth"`
	Target Bytes  `json:"target,omitempty"` // a symlink's text
	// With ws ls --long: the size in bytes (files) and the last change.
	Size     *int64 `json:"size,omitempty"`
	Modified string `json:"modified,omitempty"` // RFC 3339, UTC
}

// ListResult is the outcome of ls. Its entries are made from the listing
// only when JSON is asked for.
type ListResult struct {
	Path        Bytes `json:"path"`
	Directories int   `json:"directories"`
	Files       int   `json:"files"`
	Truncated   bool  `json:"truncated_at_depth"` // something lies deeper than maxDepth
	OutputCut   bool  `json:"output_truncated"`
	// Skipped are the directories shown without their entries because
	// they could not be read (workspace-relative), in walk order.
	Skipped []SkippedPath `json:"skipped"`
	listing *listing.Listing
	textOut
}

// MarshalJSON adds the shown entries, in display order.
func (r *ListResult) MarshalJSON() ([]byte, error) {
	type plain ListResult
	entries := []ListEntry{}
	if r.listing != nil {
		for e := range r.listing.Entries() {
			le := ListEntry{Path: Bytes(e.Path), Type: "file", Depth: e.Depth}
			if e.Dir {
				le.Type = "directory"
			}
			if e.Target != "" {
				le.Target = Bytes(e.Target)
			}
			if e.Stat {
				le.Modified = e.Modified
				if !e.Dir {
					le.Size = &e.Size
				}
			}
			entries = append(entries, le)
		}
	}
	return json.Marshal(struct {
		*plain
		Entries []ListEntry `json:"entries"`
	}{(*plain)(r), entries})
}

const defaultListTokens = 1000

// List shows a directory tree: directories first, then files, each level
// sorted, indented with tabs, with a count of what was shown (the engine
// is pkg/listing).
func (w *Workspace) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	p, t, err := w.resolveListed(req.Path)
	if err != nil {
		return nil, err
	}
	o := listing.Options{Name: p, MaxDepth: 2, Hidden: req.ShowHidden != nil && *req.ShowHidden,
		DirsOnly: req.DirsOnly != nil && *req.DirsOnly, Gitignore: req.RespectGitignore == nil || *req.RespectGitignore,
		Long: req.Long, Budget: w.cfg.MaxOutputTokens(ListFiles, defaultListTokens), Flags: dialectOf(ctx) == CLIFlags}
	if req.MaxDepth != nil {
		o.MaxDepth = *req.MaxDepth
	}
	for _, x := range strings.Split(req.Exclude, "|") {
		if x = strings.TrimSpace(x); x != "" {
			o.Exclude = append(o.Exclude, x)
		}
	}
	if req.Extension != "" {
		o.Extension = "." + strings.TrimPrefix(req.Extension, ".")
	}
	for _, g := range req.Pattern {
		if strings.TrimSpace(g) != "" {
			o.Patterns = append(o.Patterns, strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/"))
		}
	}
	l, err := listing.List(ctx, w.fs, t, o)
	if err != nil {
		return nil, errs.FromOS("list", p, err, true)
	}
	res := &ListResult{Path: Bytes(p), Directories: l.Directories, Files: l.Files, Truncated: l.Truncated,
		OutputCut: l.OutputCut, Skipped: []SkippedPath{}, listing: l, textOut: textOut{l.Text}}
	for _, s := range l.Skipped {
		res.Skipped = append(res.Skipped, SkippedPath{Path: Bytes(s.Path), Reason: s.Reason})
	}
	return res, nil
}

// resolveListed resolves the directory ls or glob is asked about, the
// workspace root when no path is given; it also returns the path as it is
// named in messages ("." for the root).
func (w *Workspace) resolveListed(path string) (string, *fsroot.Target, error) {
	if path == "" {
		path = "."
	}
	t, err := w.fs.Resolve(path)
	return path, t, err
}
