package skills

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/js"
)

// Source types, in order of precedence.
const (
	Local    = "local"
	Managed  = "managed"
	External = "external"
)

var priority = map[string]int{Local: 0, Managed: 1, External: 2}

// Skill is one loaded skill. Its JSON form (MarshalJSON, in json.go) has
// these fields in this order, under the names the tags of that method give.
type Skill struct {
	Name          string
	Description   string
	License       string
	Compatibility any
	UserInvocable *bool
	Metadata      map[string]any
	// Path is the skill's directory (the parent of its SKILL.md), spelt as
	// discovery reached it, e.g. "skills/pdf-tools".
	Path string
	// Source is Local, Managed (under .mastra/skills) or External (under
	// node_modules), from the configured path that found it.
	Source       string
	Instructions string
	References   []string
	Scripts      []string
	Assets       []string
}

// Set is the result of discovery: skills by name in discovery order, and
// the warnings met on the way.
type Set struct {
	fs       FS
	names    []string
	byName   map[string][]*Skill
	Warnings []string
	reported int
}

// NewWarnings returns the warnings added since the last call.
func (s *Set) NewWarnings() []string {
	w := s.Warnings[s.reported:]
	s.reported = len(s.Warnings)
	return w
}

// Discover loads the skills that the configured paths name (§6.1): each
// path is a glob (expanded, dot files included, four levels deep), a
// SKILL.md file or a directory holding one (a single skill), or a
// directory whose immediate subdirectories holding a SKILL.md are skills.
// A SKILL.md that cannot be loaded is skipped with a warning.
func Discover(fsys FS, paths []string) *Set {
	s := &Set{fs: fsys, byName: map[string][]*Skill{}}
	for _, raw := range paths {
		p := raw
		if len(p) > 1 && strings.HasSuffix(p, "/") {
			p = p[:len(p)-1]
		}
		src := sourceOf(p)
		if glob.Has(p) {
			for _, e := range resolveGlob(fsys, p, 4) {
				if !e.isDir {
					s.direct(e.path, src)
				} else if !s.direct(e.path, src) {
					s.scan(e.path, src)
				}
			}
			continue
		}
		if !s.direct(p, src) {
			s.scan(p, src)
		}
	}
	return s
}

// sourceOf decides the source type of a configured skills path.
func sourceOf(p string) string {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "node_modules" {
			return External
		}
	}
	n := strings.ReplaceAll(p, `\`, "/")
	if strings.Contains(n, "/.mastra/skills") || strings.HasPrefix(n, ".mastra/skills") {
		return Managed
	}
	return Local
}

func isSkillFile(p string) bool { return p == "SKILL.md" || strings.HasSuffix(p, "/SKILL.md") }

// direct loads p when it is a SKILL.md or a directory holding one, and
// reports whether it was such a direct reference.
// A path it cannot look at is left to scan, which reports it.
func (s *Set) direct(p, src string) bool {
	if isSkillFile(p) {
		ok, err := s.fs.Exists(p)
		if err != nil {
			return false
		}
		if ok {
			s.load(p, lastSegment(parentPath(p)), src)
		} else {
			s.missing(p)
		}
		return true
	}
	if ok, err := s.fs.Exists(p); ok && err == nil {
		file := joinPath(p, "SKILL.md")
		if ok, err := s.fs.Exists(file); ok && err == nil {
			s.load(file, lastSegment(p), src)
			return true
		}
	}
	return false
}

// scan loads the immediate subdirectories of p that hold a SKILL.md. A
// configured path it cannot look at (outside the workspace, say), and a
// SKILL.md it cannot reach, are reported, as Mastra logs them.
func (s *Set) scan(p, src string) {
	ok, err := s.fs.Exists(p)
	if err != nil {
		hint := ""
		if rel := strings.TrimLeft(p, "/"); rel != p && rel != "" {
			if ok, err := s.fs.Exists(rel); ok && err == nil {
				hint = fmt.Sprintf(" (did you mean to use the relative path %q?)", rel)
			}
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("cannot access skills path %q: %v%s", p, err, hint))
		return
	}
	if !ok {
		s.missing(p)
		return
	}
	entries, err := s.fs.ReadDir(p)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("cannot scan skills directory %s: %v", p, err))
		return
	}
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		dir := joinPath(p, e.Name)
		file := joinPath(dir, "SKILL.md")
		ok, err := s.fs.Exists(file)
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("skipping skill %s: %v", file, err))
		} else if ok {
			s.load(file, e.Name, src)
		}
	}
}

// missing reports a configured path that is not there: Mastra skips it
// without a word, so a misspelt path in the config looked like a skills
// directory with nothing in it.
func (s *Set) missing(p string) {
	s.Warnings = append(s.Warnings, fmt.Sprintf("skills path %q does not exist: no skills are loaded from it", p))
}

// load parses and validates one SKILL.md and adds the skill.
func (s *Set) load(file, dirName, src string) {
	sk, warns, err := s.parse(file, dirName, src)
	for _, w := range warns {
		s.Warnings = append(s.Warnings, w)
	}
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("skipping skill %s: %v", file, err))
		return
	}
	cands, seen := s.byName[sk.Name]
	for i, c := range cands {
		if c.Path == sk.Path {
			cands[i] = sk
			return
		}
	}
	if !seen {
		s.names = append(s.names, sk.Name)
	}
	s.byName[sk.Name] = append(cands, sk)
}

func (s *Set) parse(file, dirName, src string) (*Skill, []string, error) {
	raw, err := s.fs.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read it: %v", err)
	}
	data, body, err := frontMatter(js.DecodeUTF8(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("invalid front matter: %v", err)
	}
	instructions := js.TrimSpace(body)
	m, ok := data.(map[string]any)
	if !ok {
		if data != nil {
			return nil, nil, fmt.Errorf("invalid front matter: expected a mapping of fields, got %s", yamlKind(data))
		}
		m = map[string]any{}
	}
	errs, warns := validate(m, dirName, instructions)
	name, _ := m["name"].(string)
	for i, w := range warns {
		warns[i] = fmt.Sprintf("skill %s: %s", name, w)
	}
	if len(errs) > 0 {
		return nil, warns, fmt.Errorf("invalid skill metadata: %s", strings.Join(errs, "; "))
	}
	sk := &Skill{
		Name:          name,
		Path:          parentPath(file),
		Source:        src,
		Instructions:  instructions,
		Compatibility: m["compatibility"],
	}
	sk.Description, _ = m["description"].(string)
	sk.License, _ = m["license"].(string)
	if b, ok := m["user-invocable"].(bool); ok {
		sk.UserInvocable = &b
	}
	sk.Metadata, _ = m["metadata"].(map[string]any)
	sk.References = s.listFiles(joinPath(sk.Path, "references"))
	sk.Scripts = s.listFiles(joinPath(sk.Path, "scripts"))
	sk.Assets = s.listFiles(joinPath(sk.Path, "assets"))
	return sk, warns, nil
}

func yamlKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a " + jsType(v)
}

// listFiles lists the files below dir, relative to it, depth first in
// name order, at most 20 levels deep; symlinked directories are listed,
// not entered.
func (s *Set) listFiles(dir string) []string {
	out := []string{}
	if ok, _ := s.fs.Exists(dir); !ok {
		return out
	}
	var walk func(d, rel string, depth int)
	walk = func(d, rel string, depth int) {
		if depth >= 20 {
			return
		}
		entries, err := s.fs.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			r := e.Name
			if rel != "" {
				r = rel + "/" + e.Name
			}
			if e.IsDir && !e.IsLink {
				walk(joinPath(d, e.Name), r, depth+1)
			} else {
				out = append(out, r)
			}
		}
	}
	walk(dir, "", 0)
	return out
}

// canonical groups same-named candidates that resolve to one directory and
// keeps the best of each group, in first-seen order.
func (s *Set) canonical(cands []*Skill) []*Skill {
	var keys []string
	groups := map[string][]*Skill{}
	for _, c := range cands {
		k := c.Path
		if real, err := s.fs.RealPath(c.Path); err == nil {
			k = real
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	out := make([]*Skill, 0, len(keys))
	for _, k := range keys {
		g := append([]*Skill(nil), groups[k]...)
		sortByPrecedence(g)
		out = append(out, g[0])
	}
	return out
}

func sortByPrecedence(g []*Skill) {
	sort.SliceStable(g, func(i, j int) bool {
		pi, pj := priority[g[i].Source], priority[g[j].Source]
		if pi != pj {
			return pi < pj
		}
		return localeLess(g[i].Path, g[j].Path)
	})
}

// localeLess approximates JavaScript's localeCompare for paths: case and
// punctuation matter less than letters, then code points decide.
func localeLess(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

// ErrAmbiguous is a name that two skills of the same source type share.
type ErrAmbiguous struct{ Msg string }

func (e *ErrAmbiguous) Error() string { return e.Msg }

// byNameWinner picks the skill a name means: the only one, or the best by
// source type (local > managed > external). Two of the same type cannot be
// told apart and are an error (Mastra's text).
func (s *Set) byNameWinner(name string) (*Skill, string, error) {
	cands := s.byName[name]
	if len(cands) == 0 {
		return nil, "", nil
	}
	if len(cands) == 1 {
		return cands[0], "", nil
	}
	d := s.canonical(cands)
	if len(d) == 1 {
		return d[0], "", nil
	}
	sortByPrecedence(d)
	win, next := d[0], d[1]
	if win.Source == next.Source {
		var paths []string
		for _, c := range d {
			if c.Source == win.Source {
				paths = append(paths, `"`+c.Path+`"`)
			}
		}
		return nil, "", &ErrAmbiguous{Msg: fmt.Sprintf(
			"[WorkspaceSkills] Cannot resolve skill \"%s\": multiple %s skills found at %s. Rename one or move it to a different source type.",
			win.Name, win.Source, strings.Join(paths, ", "))}
	}
	var others []string
	for _, c := range d[1:] {
		others = append(others, fmt.Sprintf("\"%s\" (%s)", c.Path, c.Source))
	}
	warn := fmt.Sprintf("multiple skills named \"%s\": using \"%s\" (source: %s); other candidates: %s",
		win.Name, win.Path, win.Source, strings.Join(others, ", "))
	return win, warn, nil
}

// Get finds a skill by name (precedence rules), else by path (with or
// without a trailing /SKILL.md). It returns nil when there is none; an
// error when a name is ambiguous.
func (s *Set) Get(id string) (*Skill, error) {
	sk, warn, err := s.byNameWinner(id)
	if warn != "" {
		s.Warnings = append(s.Warnings, warn)
	}
	if err != nil || sk != nil {
		return sk, err
	}
	return s.byPath(id), nil
}

func (s *Set) byPath(p string) *Skill {
	p = strings.TrimSuffix(p, "/SKILL.md")
	for _, n := range s.names {
		for _, c := range s.byName[n] {
			if c.Path == p {
				return c
			}
		}
	}
	return nil
}

// List is every skill, one per distinct directory, in discovery order.
func (s *Set) List() []*Skill {
	var out []*Skill
	for _, n := range s.names {
		out = append(out, s.canonical(s.byName[n])...)
	}
	return out
}

// all is every loaded candidate, grouped by name, in discovery order.
func (s *Set) all() []*Skill {
	var out []*Skill
	for _, n := range s.names {
		out = append(out, s.byName[n]...)
	}
	return out
}

// joinPath joins skill paths as Mastra does: slashes trimmed between
// segments, empty segments dropped.
func joinPath(segs ...string) string {
	var parts []string
	for i, s := range segs {
		if i == 0 {
			s = strings.TrimRight(s, "/")
		} else {
			s = strings.Trim(s, "/")
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "/")
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, `/\`)
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func lastSegment(p string) string {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	if len(segs) == 0 {
		return p
	}
	// JavaScript's split keeps a trailing empty segment; pop() || p falls back.
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, `\`) {
		return p
	}
	return segs[len(segs)-1]
}

type globEntry struct {
	path  string
	isDir bool
}

// resolveGlob walks a glob's base directory (maxDepth levels, symlinked
// directories not entered) and returns the entries whose path matches.
func resolveGlob(fsys FS, pattern string, maxDepth int) []globEntry {
	var out []globEntry
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth >= maxDepth {
			return
		}
		entries, err := fsys.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.IsDir && e.IsLink {
				continue
			}
			full := e.Name
			if dir != "." && dir != "" {
				full = dir + "/" + e.Name
			}
			if glob.Match(pattern, full, true) {
				out = append(out, globEntry{path: full, isDir: e.IsDir})
			}
			if e.IsDir {
				walk(full, depth+1)
			}
		}
	}
	walk(glob.Base(pattern), 0)
	return out
}
