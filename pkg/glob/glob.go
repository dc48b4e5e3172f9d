package glob

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Has reports whether p holds a glob character (* ? { } [ ]).
func Has(p string) bool { return strings.ContainsAny(p, "*?{}[]") }

// Escape returns p with a backslash before each glob character (and each
// backslash), so that as a pattern it matches p itself only.
func Escape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?{}[]\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// Base is the directory a glob is walked from: the part before the
// first glob character, up to its last slash ("." when there is none).
func Base(p string) string {
	i := strings.IndexAny(p, "*?{}[]")
	if i < 0 {
		return p
	}
	slash := strings.LastIndexByte(p[:i], '/')
	if slash <= 0 {
		return "."
	}
	return p[:slash]
}

func normalizeForMatch(p string) string {
	if strings.HasPrefix(p, "./") {
		return p[2:]
	}
	return strings.TrimPrefix(p, "/")
}

// Match reports whether path matches pattern as picomatch does with
// posix paths: leading "./" and "/" are ignored on both sides; without dot,
// a path segment that starts with "." matches only a pattern segment that
// starts with "." too.
func Match(pattern, path string, dot bool) bool {
	pattern, path = normalizeForMatch(pattern), normalizeForMatch(path)
	ok, err := doublestar.Match(pattern, path)
	if err != nil || !ok {
		return false
	}
	if dot {
		return true
	}
	psegs := strings.Split(pattern, "/")
	for i, seg := range strings.Split(path, "/") {
		if !strings.HasPrefix(seg, ".") || seg == "." || seg == ".." {
			continue
		}
		// A dot segment needs an explicit dot in the pattern segment that
		// matched it; with ** in between, any pattern segment starting
		// with "." is taken as that explicit dot.
		if i < len(psegs) && !strings.Contains(strings.Join(psegs[:i+1], "/"), "**") {
			if !strings.HasPrefix(psegs[i], ".") {
				return false
			}
			continue
		}
		explicit := false
		for _, ps := range psegs {
			if strings.HasPrefix(ps, ".") && ps != "." && ps != ".." {
				explicit = true
			}
		}
		if !explicit {
			return false
		}
	}
	return true
}
