package grep

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes are ripgrep's common file types (rg --type-list): globs on
// the file's name. Made on first use: a map literal is built in package
// init, which every ws run would pay for.
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
		"cpp":        {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in", "*.[ch]pp.in", "*.[ch]xx.in", "*.hh.in"},
		"cs":         {"*.cs"},
		"css":        {"*.css", "*.scss"},
		"docker":     {"*Dockerfile*"},
		"go":         {"*.go"},
		"h":          {"*.h", "*.hh", "*.hpp"},
		"html":       {"*.htm", "*.html", "*.ejs"},
		"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":         {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
		"json":       {"*.json", "composer.lock", "*.sarif"},
		"kotlin":     {"*.kt", "*.kts"},
		"lua":        {"*.lua"},
		"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Mm]akefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.in", "*.mk", "*.mak"},
		"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"proto":      {"*.proto"},
		"py":         {"*.py", "*.pyi"},
		"rb":         {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
		"ruby":       {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
		"rust":       {"*.rs"},
		"scala":      {"*.scala", "*.sbt"},
		"sh":         {"*.bash", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", "*.zsh", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", "*.sh", ".profile", "*.ksh", ".kshrc", "*.csh", ".cshrc", "*.tcsh"},
		"sql":        {"*.sql", "*.psql"},
		"swift":      {"*.swift"},
		"toml":       {"*.toml", "Cargo.lock"},
		"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"txt":        {"*.txt"},
		"xml":        {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
		"yaml":       {"*.yaml", "*.yml"},
	}
})

// TypeNames lists the file types --type knows, sorted.
func TypeNames() []string {
	names := make([]string, 0, len(fileTypes()))
	for n := range fileTypes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// KnownType reports whether --type knows name.
func KnownType(name string) bool { _, ok := fileTypes()[name]; return ok }

// Filter decides which files a search takes by name: ripgrep's -g globs
// and --type names. The globs are rg's overrides, gitignore-style globs
// read the other way round: a glob is a whitelist, and one starting with
// ! leaves out what it matches. A glob without a slash matches the name of
// a file or directory at any depth, one with a slash the
// workspace-relative path (a leading / is dropped), one ending in / only
// directories. A directory a ! glob matches is not entered at all. The
// last glob that matches decides; a file none matches is left out when
// there is a whitelist glob. A glob that decides wins over .gitignore,
// dot names and --type, as in rg (see Decide).
type Filter struct {
	Globs []string
	Types []string

	once       sync.Once
	rules      []globRule
	whitelists int
}

// globRule is one -g glob, read as rg's gitignore builder reads it.
type globRule struct {
	pat     string // matched with doublestar
	base    bool   // against the name (no slash in the glob)
	dirOnly bool   // it ended in /
	white   bool   // no !: a whitelist
}

// Verdict is what the globs say of a path: Undecided leaves it to the
// other rules (.gitignore, dot names, --type).
type Verdict int8

// The verdicts of Filter.Decide.
const (
	Undecided Verdict = iota
	Include
	Exclude
)

func (f *Filter) compile() {
	f.once.Do(func() {
		for _, g := range f.Globs {
			r := globRule{white: true}
			if strings.HasPrefix(g, "!") {
				r.white, g = false, g[1:]
			}
			anchored := strings.HasPrefix(g, "/")
			g = strings.TrimPrefix(g, "/")
			if strings.HasSuffix(g, "/") {
				r.dirOnly, g = true, strings.TrimSuffix(g, "/")
			}
			r.base = !anchored && !strings.Contains(g, "/")
			if strings.HasSuffix(g, "/**") {
				g += "/*" // what is inside, not the directory itself
			}
			r.pat = g
			if r.white {
				f.whitelists++
			}
			f.rules = append(f.rules, r)
		}
	})
}

// Decide says what the -g globs make of the entry at rel (workspace-
// relative) met by a walk: the last glob that matches decides; a file
// that none matches is left out when any glob is a whitelist (a
// directory is still entered: what is below it may match).
func (f *Filter) Decide(rel string, isDir bool) Verdict {
	if f == nil || len(f.Globs) == 0 {
		return Undecided
	}
	f.compile()
	base := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		name := rel
		if r.base {
			name = base
		}
		if ok, _ := doublestar.Match(r.pat, name); ok {
			if r.white {
				return Include
			}
			return Exclude
		}
	}
	if f.whitelists > 0 && !isDir {
		return Exclude
	}
	return Undecided
}

// HasGlobs reports a filter with -g globs (Decide may say more than
// Undecided).
func (f *Filter) HasGlobs() bool { return f != nil && len(f.Globs) > 0 }

// Match reports whether the file at rel (workspace-relative) passes: the
// globs' verdict, else its type.
func (f *Filter) Match(rel string) bool {
	if f == nil {
		return true
	}
	switch f.Decide(rel, false) {
	case Include:
		return true
	case Exclude:
		return false
	}
	if len(f.Types) > 0 {
		base := path.Base(rel)
		for _, t := range f.Types {
			if slices.ContainsFunc(fileTypes()[t], func(g string) bool { m, _ := path.Match(g, base); return m }) {
				return true
			}
		}
		return false
	}
	return true
}

// ValidGlob reports whether a -g glob parses (after its ! if any).
func ValidGlob(g string) bool {
	return doublestar.ValidatePattern(strings.TrimPrefix(g, "!"))
}
