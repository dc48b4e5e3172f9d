package gitignore

import (
	"slices"
	"strings"
)

// MaxFileSize is the size from which git ignores a whole pattern file
// (PATTERN_MAX_FILE_SIZE, 100 MiB): Parse returns no rules for content
// this long or longer.
const MaxFileSize = 100 << 20

// Rule flags.
const (
	flagNegated = 1 << iota // "!pattern"
	flagDirOnly             // "pattern/"
	flagNoDir               // no slash: matches the base name at any depth
)

// How a base-name rule (flagNoDir) compares.
const (
	kindWild    = iota // wildmatch without WM_PATHNAME
	kindLiteral        // no wildcard: equality
	kindSuffix         // "*literal": suffix
)

// Rule is one compiled pattern line of a .gitignore file. Its zero value
// matches nothing. A Rule is immutable and safe for concurrent use.
type Rule struct {
	text  string // the line after trimming, as git -v prints it
	base  string // directory of the file: "" or "dir/"
	line  int
	flags uint8
	kind  uint8
	last  byte // the last byte of any path it matches, or 0 if unknown

	// Base-name rules: the pattern without '!' and trailing '/'.
	pattern string

	// Path rules: the pattern without a leading '/', split into its
	// literal prefix and the rest, which git matches separately.
	lit  string
	wild string

	// For wildcard rules: literal strings a match starts and ends with,
	// checked before running wildmatch.
	head, tail string
}

// Parse compiles the content of the .gitignore file of the directory base
// (slash-separated, relative to the root of the tree: "" or "." for the
// root) into rules, in file order. It follows git: a UTF-8 BOM is skipped,
// lines end at "\n" with an optional "\r" before it, blank lines and lines
// starting with '#' are skipped, and trailing spaces are trimmed unless
// escaped with a backslash. Every other line becomes a rule, even one that
// can never match. Content of MaxFileSize bytes or more gives no rules.
func Parse(content []byte, base string) []Rule {
	if len(content) >= MaxFileSize {
		return nil
	}
	base = normBase(base)
	// One string for the whole file: the rules keep slices of it.
	text := strings.TrimPrefix(string(content), "\xef\xbb\xbf")
	rules := make([]Rule, 0, strings.Count(text, "\n")+1)
	for lineno := 1; len(text) > 0; lineno++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = strings.TrimSuffix(line, "\r")
		if i := strings.IndexByte(line, 0); i >= 0 {
			line = line[:i] // git works on C strings
		}
		rules = append(rules, compile(trimTrailingSpaces(line), base, lineno))
	}
	if len(rules) == 0 {
		return nil
	}
	return slices.Clip(rules)
}

// normBase turns a directory into the "" or "dir/" form rules keep.
func normBase(dir string) string {
	dir = strings.TrimPrefix(dir, "./")
	dir = strings.TrimRight(dir, "/")
	if dir == "" || dir == "." {
		return ""
	}
	return dir + "/"
}

// trimTrailingSpaces removes trailing spaces but one escaped with a
// backslash (git's trim_trailing_spaces; tabs stay).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
			continue
		case '\\':
			i++
			if i == len(s) {
				return s
			}
		}
		lastSpace = -1
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// simpleLength is the length of the literal prefix of s, up to the first
// glob special character.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// compile builds the rule for one trimmed line (git's
// parse_path_pattern and the pre-computation of match_pathname).
func compile(text, base string, line int) Rule {
	r := Rule{text: text, base: base, line: line}
	p := text
	if strings.HasPrefix(p, "!") {
		r.flags |= flagNegated
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.flags |= flagDirOnly
		p = p[:len(p)-1]
	}
	prefix := simpleLength(p)
	if strings.IndexByte(p, '/') < 0 {
		r.flags |= flagNoDir
		r.pattern = p
		switch {
		case prefix == len(p):
			r.kind = kindLiteral
		case p[0] == '*' && simpleLength(p[1:]) == len(p)-1:
			r.kind = kindSuffix
			r.pattern = p[1:]
		default:
			r.kind = kindWild
			r.head, r.tail = p[:prefix], literalTail(p)
			r.last = lastByte(r.tail)
		}
		if r.kind != kindWild {
			r.last = lastByte(r.pattern)
		}
		return r
	}
	if p[0] == '/' {
		p = p[1:]
		prefix--
	}
	r.lit, r.wild = p[:prefix], p[prefix:]
	r.tail = literalTail(r.wild)
	if r.wild == "" {
		r.last = lastByte(r.lit)
	} else {
		r.last = lastByte(r.tail)
	}
	return r
}

// lastByte returns the last byte of s, or 0 when s is empty.
func lastByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[len(s)-1]
}

// literalTail returns a string that every text matching the wildcard
// pattern p ends with: the characters after the last '*' or '?' but a
// leading slash ("**/" may match nothing), or "" when p holds a class or
// an escape.
func literalTail(p string) string {
	if strings.ContainsAny(p, "[\\") {
		return ""
	}
	i := strings.LastIndexAny(p, "*?")
	return strings.TrimPrefix(p[i+1:], "/")
}

// String returns the pattern as written in the file, after trimming, which
// is what `git check-ignore -v` prints.
func (r *Rule) String() string { return r.text }

// Negated reports whether the rule re-includes what it matches ("!...").
func (r *Rule) Negated() bool { return r.flags&flagNegated != 0 }

// DirOnly reports whether the rule matches directories only ("pattern/").
func (r *Rule) DirOnly() bool { return r.flags&flagDirOnly != 0 }

// Base returns the directory of the .gitignore file the rule comes from:
// "" for the root, else a slash-separated path with a trailing slash.
func (r *Rule) Base() string { return r.base }

// Line returns the 1-based line number of the rule in its file.
func (r *Rule) Line() int { return r.line }

// Match reports whether the pattern of r matches rel, a slash-separated
// path relative to the root, as a directory if isDir. It ignores negation
// and the parents of rel: that is what a Matcher adds. A path outside the
// directory of the rule never matches.
func (r *Rule) Match(rel string, isDir bool) bool {
	if rel == "" || !strings.HasPrefix(rel, r.base) {
		return false
	}
	return r.match(rel[len(r.base):], rel[strings.LastIndexByte(rel, '/')+1:], isDir)
}

// match is Rule.Match for a path already below the base of r: name is the
// path relative to that base, basename its last element.
func (r *Rule) match(name, basename string, isDir bool) bool {
	if r.flags&flagDirOnly != 0 && !isDir {
		return false
	}
	if r.flags&flagNoDir != 0 {
		switch r.kind {
		case kindLiteral:
			return basename == r.pattern
		case kindSuffix:
			return strings.HasSuffix(basename, r.pattern)
		}
		return len(basename) >= len(r.head)+len(r.tail) &&
			basename[:len(r.head)] == r.head &&
			basename[len(basename)-len(r.tail):] == r.tail &&
			wildmatch(r.pattern, basename, false)
	}
	if r.lit != "" {
		if !strings.HasPrefix(name, r.lit) {
			return false
		}
		name = name[len(r.lit):]
		if r.wild == "" {
			return name == ""
		}
	}
	return strings.HasSuffix(name, r.tail) && wildmatch(r.wild, name, true)
}
