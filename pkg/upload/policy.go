package upload

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/wstools/ws/pkg/media"
)

// DefaultMaxFileSize is the size limit of a file when none is configured:
// 10 MiB, as Mastra's.
const DefaultMaxFileSize int64 = 10 << 20

// FileInfo is what a filter and a size limit see of a file, shaped like
// Mastra's FileUploadFileInfo: the name as sent (left out when there is
// none), the normalised MIME type, and the lower-cased extension of the
// name (left out when there is none).
type FileInfo struct {
	FileName  string `json:"fileName,omitempty"`
	MIMEType  string `json:"mimeType"`
	Extension string `json:"extension,omitempty"`
}

// InfoOf describes a file for filters and limits.
func InfoOf(f File) FileInfo {
	return FileInfo{FileName: f.Name, MIMEType: media.Normalize(f.MIMEType), Extension: ExtensionOf(f.Name)}
}

// Pattern selects files by extension (`pdf`, `.pdf` and `*.pdf` alike,
// globs such as `xls*`) or, when it holds a "/", by MIME type glob
// (`image/*`, `application/pdf`, `*/*`). Matching ignores case. `*` alone
// matches every file, with or without an extension. An extension pattern
// holding a dot is refused: the extension is what follows a name's last
// dot (a.tar.gz has gz), so it could never match.
type Pattern struct {
	text string
	mime bool
	glob string
}

// ParsePattern checks one pattern.
func ParsePattern(s string) (Pattern, error) {
	p := Pattern{text: s}
	g := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(g, "/") {
		p.mime = true
	} else {
		g = strings.TrimPrefix(strings.TrimPrefix(g, "*."), ".") // *.pdf: a shell glob of names means the extension
	}
	if g == "" {
		return p, fmt.Errorf("%q is not a pattern: give an extension (pdf) or a MIME type glob (image/*)", s)
	}
	if !p.mime && strings.Contains(g, ".") {
		return p, fmt.Errorf("%q never matches: a file's extension is what follows the last dot of its name (a.tar.gz has gz), so give that part alone", s)
	}
	if _, err := path.Match(g, "x"); err != nil {
		return p, fmt.Errorf("%q is not a valid glob: %v", s, err)
	}
	p.glob = g
	return p, nil
}

// ParsePatterns checks a list of patterns; each item may itself hold
// several, separated by commas.
func ParsePatterns(items []string) ([]Pattern, error) {
	var out []Pattern
	for _, item := range items {
		for _, s := range strings.Split(item, ",") {
			p, err := ParsePattern(s)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// String is the pattern as given.
func (p Pattern) String() string { return p.text }

// Match reports whether the file matches the pattern.
func (p Pattern) Match(info FileInfo) bool {
	if p.glob == "*" {
		return true
	}
	if p.mime {
		ok, _ := path.Match(p.glob, info.MIMEType)
		return ok
	}
	if info.Extension == "" {
		return false
	}
	ok, _ := path.Match(p.glob, info.Extension)
	return ok
}

// Selector is the static part of the upload filter: with include patterns,
// only files matching one of them are uploaded; files matching an exclude
// pattern never are.
type Selector struct {
	Include []Pattern
	Exclude []Pattern
}

// Accepts reports whether the selector lets the file be uploaded.
func (s Selector) Accepts(info FileInfo) bool {
	if len(s.Include) > 0 && !matchAny(s.Include, info) {
		return false
	}
	return !matchAny(s.Exclude, info)
}

func matchAny(ps []Pattern, info FileInfo) bool {
	for _, p := range ps {
		if p.Match(info) {
			return true
		}
	}
	return false
}

// SizeRule is a size limit for the files a pattern matches.
type SizeRule struct {
	Pattern Pattern
	Size    int64
}

// Limits are the size limits of files: the first rule whose pattern
// matches the file, else the default.
type Limits struct {
	Default int64
	Rules   []SizeRule
}

// ParseLimits reads size limits as `--max-size` takes them: `SIZE` sets the
// default (the last one given wins; 10 MiB when none is), `PATTERN=SIZE`
// adds a rule for the files the pattern matches (`image/*=5MiB`,
// `pdf=20MB`); rules are tried in order.
func ParseLimits(specs []string) (Limits, error) {
	l := Limits{Default: DefaultMaxFileSize}
	for _, spec := range specs {
		pat, size, ok := strings.Cut(spec, "=")
		if !ok {
			n, err := ParseSize(spec)
			if err != nil {
				return l, err
			}
			l.Default = n
			continue
		}
		p, err := ParsePattern(pat)
		if err != nil {
			return l, fmt.Errorf("in %q: %v", spec, err)
		}
		n, err := ParseSize(size)
		if err != nil {
			return l, fmt.Errorf("in %q: %v", spec, err)
		}
		l.Rules = append(l.Rules, SizeRule{Pattern: p, Size: n})
	}
	return l, nil
}

// For is the size limit of a file.
func (l Limits) For(info FileInfo) int64 {
	for _, r := range l.Rules {
		if r.Pattern.Match(info) {
			return r.Size
		}
	}
	return l.Default
}

var sizeSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$`)
})

var sizeUnits = []pair[int64]{
	{"", 1}, {"b", 1},
	{"k", 1 << 10}, {"kib", 1 << 10}, {"kb", 1e3},
	{"m", 1 << 20}, {"mib", 1 << 20}, {"mb", 1e6},
	{"g", 1 << 30}, {"gib", 1 << 30}, {"gb", 1e9},
	{"t", 1 << 40}, {"tib", 1 << 40}, {"tb", 1e12},
}

// errSize explains the size syntax.
var errSize = errors.New("use a number of bytes, or a number with a unit: 512KiB, 5MiB, 1.5GB (KiB/MiB/GiB = 1024-based, KB/MB/GB = 1000-based)")

// ParseSize reads a size: a number of bytes, or a number (fractions
// allowed) with a unit, case ignored: B; KiB, MiB, GiB, TiB (or K, M, G, T),
// powers of 1024; KB, MB, GB, TB, powers of 1000. A fractional byte count
// is rounded down.
func ParseSize(s string) (int64, error) {
	m := sizeSyntax().FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size: %v", s, errSize)
	}
	unit, ok := lookup(sizeUnits, strings.ToLower(m[2]))
	if !ok {
		return 0, fmt.Errorf("%q has an unknown unit %q: %v", s, m[2], errSize)
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return 0, fmt.Errorf("%q is not a size: %v", s, errSize)
	}
	r.Mul(r, new(big.Rat).SetInt64(unit))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if !n.IsInt64() || n.Int64() == math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n.Int64(), nil
}
