package workspace

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/tokens"
)

// GrepMatch is one matching line.
type GrepMatch struct {
	Path    Bytes         `json:"path"`
	Line    int           `json:"line"`
	Column  int           `json:"column"` // 1-based, in UTF-16 code units as Mastra counts
	Text    Bytes         `json:"text"`   // the raw line: {"bytes": base64} when not UTF-8
	Context []ContextLine `json:"context,omitempty"`
}

// ContextLine is a line shown around a match.
type ContextLine struct {
	Line int   `json:"line"`
	Text Bytes `json:"text"`
}

// GrepResult is the outcome of grep.
type GrepResult struct {
	Matches        []GrepMatch `json:"matches"`
	Files          int         `json:"files"`
	Truncated      bool        `json:"truncated"` // stopped at the 1000-match cap
	BinarySkipped  int         `json:"binary_skipped"`
	ReadErrors     int         `json:"read_errors"`
	TargetNotFound bool        `json:"target_not_found"`
	OutputCut      bool        `json:"output_truncated"`
	textOut
}

const (
	grepMaxMatches   = 1000
	grepMaxLineUnits = 500
	grepMaxPattern   = 1000
	defaultGrepTok   = 2000
)

// Grep searches files for a regular expression, in parallel, and reports
// the first match of each matching line with Mastra's layout.
func (w *Workspace) Grep(ctx context.Context, req GrepRequest) (*GrepResult, error) {
	if n := js.UTF16Len(req.Pattern); n > grepMaxPattern {
		return nil, errs.PatternTooLong(n)
	}
	m, err := grep.Compile(req.Pattern, req.CaseSensitive == nil || *req.CaseSensitive)
	if err != nil {
		return nil, err
	}
	p := req.Path
	if p == "" {
		p = "."
	}
	ctxLines := 0
	if req.ContextLines != nil && *req.ContextLines > 0 {
		// More context than any file has lines is all of it; the bound
		// keeps line arithmetic from overflowing.
		ctxLines = int(min(*req.ContextLines, 1<<40))
	}
	// Mastra stops a file once its count reaches maxCount, checking after
	// each hit: 2.5 allows 3, and 0, a negative or a fraction below 1
	// allow 1. Only an absent maxCount means no limit.
	maxCount := 0
	if mc := req.MaxCount; mc != nil && !math.IsNaN(*mc) {
		maxCount = 1
		if *mc > 1 {
			maxCount = int(math.Min(math.Ceil(*mc), math.MaxInt32))
		}
	}
	o := grep.Options{Matcher: m, MaxCount: maxCount, MaxMatches: grepMaxMatches, Hidden: req.IncludeHidden != nil && *req.IncludeHidden}
	root := p
	if glob.Has(p) {
		root = glob.Base(p)
		o.Glob = strings.TrimPrefix(strings.TrimPrefix(filepathToSlash(p), "./"), "/")
	}
	found := grep.Search(ctx, w.fs, root, o)
	if t := found.Timeout; t != nil {
		return nil, errs.RegexTimeout(t.Rel, t.Line, t.Limit.String())
	}
	res := &GrepResult{Matches: []GrepMatch{}, Truncated: found.Truncated, BinarySkipped: found.BinarySkipped,
		ReadErrors: found.ReadErrors, TargetNotFound: found.TargetNotFound}
	res.text = w.formatGrep(res, found.Files, m, ctxLines, dialectOf(ctx))
	return res, nil
}

// formatGrep lays out Mastra's textOut: textOut{the summary}, `---`, then the rows.
func (w *Workspace) formatGrep(res *GrepResult, files []*grep.File, m *grep.Matcher, ctxLines int, d Dialect) string {
	var rows []string
	hunks := 0
	for _, f := range files {
		res.Files++
		n := f.Lines.Count()
		// Hunks: [hit-C, hit+C], merged when they touch or overlap.
		type span struct{ from, to int }
		var spans []span
		for _, h := range f.Hits {
			s := span{max(0, h.Line-ctxLines), min(n-1, h.Line+ctxLines)}
			if k := len(spans); k > 0 && s.from <= spans[k-1].to+1 {
				spans[k-1].to = max(spans[k-1].to, s.to)
			} else {
				spans = append(spans, s)
			}
		}
		hitAt := map[int]int{}
		for _, h := range f.Hits {
			hitAt[h.Line] = h.Col
		}
		for _, s := range spans {
			if ctxLines > 0 && hunks > 0 {
				rows = append(rows, "--")
			}
			hunks++
			for i := s.from; i <= s.to; i++ {
				line := f.Lines.Get(f.Buf, i)
				col, isHit := hitAt[i]
				if !isHit {
					rows = append(rows, fmt.Sprintf("%s:%d- %s", f.Rel, i+1, jsString(line)))
					continue
				}
				c := js.UTF16Len(jsString(line[:col])) + 1
				text := cutAround(jsString(line), c-1, js.UTF16Len(jsString(line[col:min(len(line), col+m.MatchLen(line, col))])))
				rows = append(rows, fmt.Sprintf("%s:%d:%d: %s", f.Rel, i+1, c, text))
			}
		}
		for _, h := range f.Hits {
			gm := GrepMatch{Path: Bytes(f.Rel), Line: h.Line + 1, Column: js.UTF16Len(jsString(f.Lines.Get(f.Buf, h.Line)[:h.Col])) + 1, Text: Bytes(f.Lines.Get(f.Buf, h.Line))}
			for i := max(0, h.Line-ctxLines); i <= min(n-1, h.Line+ctxLines); i++ {
				if i != h.Line {
					gm.Context = append(gm.Context, ContextLine{Line: i + 1, Text: Bytes(f.Lines.Get(f.Buf, i))})
				}
			}
			res.Matches = append(res.Matches, gm)
		}
	}
	total := len(res.Matches)
	summary := fmt.Sprintf("%d %s across %d %s", total, pluralWord(total, "match", "matches"), res.Files, pluralWord(res.Files, "file", "files"))
	if res.Truncated {
		summary += " (truncated at 1000; narrow the path or pattern, or set " + d.param("maxCount", "max-count") + ")"
	}
	if res.BinarySkipped > 0 {
		summary += fmt.Sprintf(" (%d binary %s skipped)", res.BinarySkipped, pluralWord(res.BinarySkipped, "file", "files"))
	}
	if res.TargetNotFound {
		summary += " (target path not found: nothing searched)"
	}
	if res.ReadErrors > 0 {
		summary += fmt.Sprintf(" (%d %s skipped: read error)", res.ReadErrors, pluralWord(res.ReadErrors, "path", "paths"))
	}
	full := summary + "\n---"
	if len(rows) > 0 {
		full += "\n" + strings.Join(rows, "\n")
	}
	budget := w.cfg.MaxOutputTokens(Grep, defaultGrepTok)
	if tokens.Estimate(full) <= budget {
		return full
	}
	res.OutputCut = true
	notice := func(shown int) string {
		return fmt.Sprintf("[output truncated: showing %d of %d lines; narrow the search with a more specific path or pattern, or set %s]", shown, len(rows), d.param("maxCount", "max-count"))
	}
	// Only the content is charged, as Mastra's cut charges it: the
	// summary and the rows; the notice comes on top.
	used := tokens.Estimate(summary + "\n---")
	var sb strings.Builder
	sb.WriteString(summary + "\n---")
	shown := 0
	for _, r := range rows {
		t := tokens.Estimate(r)
		if used+t > budget {
			break
		}
		used += t
		sb.WriteString("\n" + r)
		shown++
	}
	sb.WriteString("\n" + notice(shown))
	return sb.String()
}

// cutAround shortens a long matching line to 500 UTF-16 units. Mastra keeps
// the first 500 (so a match further right is cut away); here the window
// moves to show the match when it lies beyond, with "..." at each cut end.
func cutAround(s string, col, mlen int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= grepMaxLineUnits {
		return s
	}
	if col+max(mlen, 1) <= grepMaxLineUnits {
		return string(utf16.Decode(u[:grepMaxLineUnits])) + "..."
	}
	start := max(0, col-100)
	end := min(len(u), start+grepMaxLineUnits)
	out := "..." + string(utf16.Decode(u[start:end]))
	if end < len(u) {
		out += "..."
	}
	return out
}
