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
// (a glob without a slash matches the file's name at any depth, one with
// a slash the path from the search root; ! negates) and --type names.
type Filter struct {
	Globs []string
	Types []string
}

// Match reports whether the file at rel (below the search root) passes.
func (f *Filter) Match(rel string) bool {
	if f == nil {
		return true
	}
	base := path.Base(rel)
	if len(f.Types) > 0 {
		ok := false
		for _, t := range f.Types {
			if slices.ContainsFunc(fileTypes()[t], func(g string) bool { m, _ := path.Match(g, base); return m }) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	positive, included := false, false
	for _, g := range f.Globs {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(g, "!")
		if !neg {
			positive = true
		}
		if globMatch(g, rel, base) {
			if neg {
				return false
			}
			included = true
		}
	}
	return !positive || included
}

// globMatch matches a -g glob: without a slash against the name, with one
// against the workspace-relative path.
func globMatch(g, rel, base string) bool {
	if !strings.Contains(g, "/") {
		ok, _ := doublestar.Match(g, base)
		return ok
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(g, "/"), rel)
	return ok
}

// ValidGlob reports whether a -g glob parses (after its ! if any).
func ValidGlob(g string) bool {
	return doublestar.ValidatePattern(strings.TrimPrefix(g, "!"))
}
