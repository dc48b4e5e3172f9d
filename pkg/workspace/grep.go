package workspace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/internal/wording"
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

// SkippedPath is a path a tool passed over (one grep could not search,
// one of the autoIndexPaths not indexed), and why.
type SkippedPath struct {
	Path   Bytes  `json:"path"` // {"bytes": base64} when not UTF-8
	Reason string `json:"reason"`
}

// ContextLine is a line shown around a match.
type ContextLine struct {
	Line int   `json:"line"`
	Text Bytes `json:"text"`
}

// GrepResult is the outcome of grep.
type GrepResult struct {
	Matches []GrepMatch `json:"matches"` // none with -c
	// GrepCounts is -c's: set only then, so its keys appear only then.
	*GrepCounts
	Files          int           `json:"files"`
	Truncated      bool          `json:"truncated"` // stopped at the 1000-match cap
	BinarySkipped  int           `json:"binary_skipped"`
	ReadErrors     int           `json:"read_errors"` // len(Skipped)
	Skipped        []SkippedPath `json:"skipped"`     // in walk order
	Hints          []string      `json:"hints,omitempty"`
	Without        *[]Bytes      `json:"files_without_match,omitempty"` // -L's files, in walk order: set only then, [] when none
	TargetNotFound bool          `json:"target_not_found"`
	OutputCut      bool          `json:"output_truncated"`
	textOut
	matched int // lines found: len(Matches), or -c's total, or what --jsonl sent
}

// GrepCounts is what -c finds: each file's number of matching lines (or
// with -v, of lines that do not match), in walk order, and their sum.
type GrepCounts struct {
	Counts []GrepCount `json:"counts"`
	Total  int         `json:"total"`
}

// GrepCount is one file's count.
type GrepCount struct {
	Path  Bytes `json:"path"` // {"bytes": base64} when not UTF-8
	Count int   `json:"count"`
}

// Matched is the number of lines the search found (0: nothing matched).
func (r *GrepResult) Matched() int { return r.matched }

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
	m, err := grep.CompileWith(req.Pattern, grep.CompileOptions{CaseSensitive: req.CaseSensitive == nil || *req.CaseSensitive,
		Fixed: req.Fixed, Word: req.Word, Multiline: req.Multiline != nil && *req.Multiline})
	if err != nil {
		// From the command line, the way to search for text such as
		// "Plural(" as written (a tool call has no such parameter).
		var e *errs.Error
		if dialectOf(ctx) == CLIFlags && errors.As(err, &e) && e.Code == errs.InvalidPattern {
			e.Message += " (-F searches for the text as written)"
		}
		return nil, err
	}
	ctxLines := 0
	if req.ContextLines != nil && *req.ContextLines > 0 {
		// More context than any file has lines is all of it; the bound
		// keeps line arithmetic from overflowing.
		ctxLines = int(min(*req.ContextLines, 1<<40))
	}
	before, after := ctxLines, ctxLines
	if req.Before != nil {
		before = min(max(*req.Before, 0), 1<<40)
	}
	if req.After != nil {
		after = min(max(*req.After, 0), 1<<40)
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
	o := grep.Options{Matcher: m, MaxCount: maxCount, MaxMatches: grepMaxMatches, Hidden: req.IncludeHidden != nil && *req.IncludeHidden,
		Invert: req.Invert, NoIgnore: req.NoIgnore, Before: before, After: after}
	// -l, -L, -c and -q show no line: a binary file named as a PATH is
	// searched, as rg searches it.
	o.NamedBinary = req.FilesOnly || req.Without || req.CountOnly || req.Quiet
	if len(req.Globs) > 0 || len(req.Types) > 0 {
		o.Filter = &grep.Filter{Globs: req.Globs, Types: req.Types}
	}
	switch {
	case req.Quiet:
		o.MaxMatches = 1 // the first match decides
	case req.FilesOnly:
		// Only the files: each one's first match decides (as rg -l).
		// Printed as paths, no content is kept; as data (--json), each
		// file's first matching line is, so its match is a whole one.
		o.MaxMatches, o.MaxCount, o.NoContent = 0, 1, req.Rows != nil
	case req.CountOnly:
		// No rows are shown: every match counts, and only each file's
		// count is kept.
		o.MaxMatches, o.Count = 0, true
	case req.Without:
		// A file's first match rules it out; nothing of it is kept.
		o.MaxMatches, o.MaxCount, o.NoContent = 0, 1, true
	case req.Events != nil:
		o.MaxMatches = 0 // rows stream: every match counts
	}
	var stream *grep.RGStream
	if req.Events != nil {
		stream = grep.NewRGStream(req.Events, m, before, after, w.now)
		o.OnFile, o.Parts, o.Forget = stream.File, true, true
	}
	var without []Bytes
	if req.Without && !req.Quiet {
		o.OnMiss = func(rel string) {
			without = append(without, Bytes(rel))
			if req.Rows != nil {
				req.Rows(rowName(rel, req.Null))
			}
		}
	}
	if req.Rows != nil && !req.Quiet {
		// -l's and -c's lines go out as the files are taken, in walk
		// order: nothing waits for the end of the search.
		switch {
		case req.FilesOnly:
			o.OnFile = func(f *grep.File) { req.Rows(rowName(f.Rel, req.Null)) }
		case req.CountOnly:
			o.OnFile = func(f *grep.File) { req.Rows(countRow(f, req.Null)) }
		}
	}
	paths := append([]string{req.Path}, req.MorePaths...)
	if paths[0] == "" {
		paths[0] = "."
	}
	d := dialectOf(ctx)
	res := &GrepResult{Matches: []GrepMatch{}, Skipped: []SkippedPath{}}
	var files []*grep.File
	for _, p := range paths {
		po := o
		root := p
		// A path with glob characters that is there as written (a
		// Next.js app/[slug]/page.tsx) is that path; Mastra reads it as
		// a glob, which matches app/s/page.tsx, and finds nothing.
		if glob.Has(p) && !w.pathExists(p) {
			root = glob.Base(p)
			po.Glob = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/") // a backslash escapes, as in Mastra's picomatch
			// So is a directory at its start (app/[slug]/*.tsx): the glob
			// is the rest, below it.
			if dir, ok := w.literalGlobDir(p); ok {
				root, po.Glob = dir, glob.Escape(strings.TrimPrefix(strings.TrimPrefix(dir, "./"), "/"))+strings.TrimPrefix(p, dir)
			}
		}
		if o.MaxMatches > 0 {
			po.MaxMatches = o.MaxMatches - countHits(files)
			if po.MaxMatches <= 0 {
				break
			}
		}
		found, err := grep.Search(ctx, w.fs, root, po)
		if err != nil {
			return nil, err
		}
		if t := found.Timeout; t != nil {
			return nil, errs.RegexTimeout(t.Rel, t.Line, t.Limit.String())
		}
		if t := stream.Timeout(); t != nil {
			return nil, errs.RegexTimeout(t.Rel, t.Line, t.Limit.String())
		}
		files = append(files, found.Files...)
		res.Truncated = res.Truncated || found.Truncated
		res.BinarySkipped += found.BinarySkipped
		if found.TargetNotFound {
			if len(paths) == 1 {
				res.TargetNotFound = true
			} else {
				res.Skipped = append(res.Skipped, SkippedPath{Path: Bytes(p), Reason: "not found"})
			}
		}
		for _, sk := range found.Skipped {
			res.Skipped = append(res.Skipped, SkippedPath{Path: Bytes(sk.Rel), Reason: sk.Reason})
		}
		// Hints are for the summary: -l's, -c's and -L's rows and --jsonl
		// have none to show them in, so their probes (a binary file read
		// again, a deeper glob, the .git directories) are not run.
		if len(paths) == 1 && len(found.Files) == 0 && !req.Quiet && !req.Without && req.Rows == nil && req.Events == nil {
			res.Hints = w.grepHints(ctx, found, root, po, p, d)
			if !(req.Multiline != nil && *req.Multiline) && asksLineEnd(req.Pattern) {
				res.Hints = append(res.Hints, newlineHint(d, w.cfg.Tools.WSTools))
			}
		}
	}
	res.ReadErrors = len(res.Skipped)
	if res.TargetNotFound && (stream != nil || req.Quiet || req.FilesOnly || req.CountOnly || req.Without) {
		// Nor would a PATH that is not there: the summary says "target
		// path not found"; without one, a typo read as "no file matched"
		// (or, for -L, "every file matched").
		root := paths[0]
		if glob.Has(root) {
			root = glob.Base(root)
		}
		msg := wording.ShellWord(root) + " does not exist: nothing searched"
		if n := w.nearestPath(root); n != "" {
			msg += " (did you mean " + wording.ShellName(n) + "?)"
		}
		w.warn(msg)
	}
	if n := len(res.Skipped); n > 0 && (stream != nil || req.Quiet || req.FilesOnly || req.CountOnly || req.Without) {
		// These outputs have no summary to name them in: say it on
		// stderr, as rg does, so -l or -q never passes over a path
		// without a word.
		w.warn(fmt.Sprintf("%d %s skipped: %s", n, wording.Plural(n, "path", "paths"), skippedNames(res.Skipped, d)))
	}
	if n := res.BinarySkipped; n > 0 && (stream != nil || req.Quiet || req.FilesOnly || req.CountOnly || req.Without) {
		// Nor would the binary files passed over be told, which the
		// summary counts: a tree of them looked like no match.
		w.warn(fmt.Sprintf("%d binary %s skipped", n, wording.Plural(n, "file", "files")))
	}
	res.matched = countHits(files)
	res.Files = len(files)
	switch {
	case stream != nil:
		// Sent as found: the files keep nothing more.
		stream.Summary()
	case req.Quiet:
		// The first match decides: stopping there leaves out nothing -q
		// would show, so the search is not truncated.
		res.text, res.Truncated = "", false
		for _, f := range files {
			res.Matches = append(res.Matches, matchOf(f, f.Hits[0]))
		}
	case req.Without:
		if without == nil {
			without = []Bytes{} // -L's key is there when it found none, as -c's counts are
		}
		res.Without = &without
		if req.Rows == nil {
			names := make([]string, len(without))
			for i, b := range without {
				names[i] = rowName(string(b), req.Null)
			}
			res.text = strings.Join(names, "\n")
		}
	case req.FilesOnly:
		// One match a file, its first (when its line was kept: see above).
		var sb strings.Builder
		for _, f := range files {
			if f.Lines != nil {
				res.Matches = append(res.Matches, matchOf(f, f.Hits[0]))
			}
			if req.Rows == nil {
				sb.WriteString(rowName(f.Rel, req.Null) + "\n")
			}
		}
		res.text = strings.TrimSuffix(sb.String(), "\n")
	case req.CountOnly:
		res.GrepCounts = &GrepCounts{Counts: make([]GrepCount, 0, len(files)), Total: res.matched}
		var sb strings.Builder
		for _, f := range files {
			res.Counts = append(res.Counts, GrepCount{Path: Bytes(f.Rel), Count: f.Count})
			if req.Rows == nil {
				sb.WriteString(countRow(f, req.Null) + "\n")
			}
		}
		res.text = strings.TrimSuffix(sb.String(), "\n")
	default:
		res.text = w.formatGrep(res, files, m, before, after, req.Only, d)
	}
	return res, nil
}

// literalGlobDir is the longest run of the glob p's leading names that is
// a directory there as written and has glob characters itself (app/[slug]
// of app/[slug]/*.tsx); ok is false when there is none.
func (w *Workspace) literalGlobDir(p string) (dir string, ok bool) {
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
		if dir := p[:i]; glob.Has(dir) && w.pathExists(dir) {
			return dir, true
		}
	}
	return "", false
}

// matchOf is hit h of f as data: its place and its line, which f keeps.
func matchOf(f *grep.File, h grep.Hit) GrepMatch {
	line := f.Lines.Get(f.Buf, h.Line)
	return GrepMatch{Path: Bytes(f.Rel), Line: h.Line + 1, Column: js.UTF16LenUTF8(line[:h.Col]) + 1, Text: Bytes(line)}
}

// countRow is -c's line for a file: path:count, the name as ls and grep's
// rows print it (a name that is not UTF-8 keeps its bytes, for a script to
// use); with null, the name's bytes and a NUL in place of the colon (rg -c
// -0), so a name with a colon in it is not misread.
func countRow(f *grep.File, null bool) string {
	if null {
		return f.Rel + "\x00" + strconv.Itoa(f.Count)
	}
	return wording.Name(f.Rel) + ":" + strconv.Itoa(f.Count)
}

// rowName is a file's name as a row of -l, -L or -c shows it: its bytes
// with -0, which a NUL ends, else as ls shows names (wording.Name), so a
// newline in a name cannot make a row that looks like another file.
func rowName(rel string, null bool) string {
	if null {
		return rel
	}
	return wording.Name(rel)
}

// countHits is how many lines the files report.
func countHits(files []*grep.File) int {
	n := 0
	for _, f := range files {
		n += f.Count
	}
	return n
}

// grepHints explain a search that found nothing where a small change
// would find something: a glob that only matches at its own level while
// the same glob at any depth has matches, or .git directories that the
// walk left out.
func (w *Workspace) grepHints(ctx context.Context, found *grep.Result, root string, o grep.Options, p string, d Dialect) []string {
	var hints []string
	if found.TargetNotFound {
		if n := w.nearestPath(root); n != "" {
			hints = append(hints, "hint: "+wording.ShellWord(root)+" does not exist; did you mean "+wording.ShellName(n)+"?")
		}
	}
	o.OnFile = nil // the probes only look: nothing they find is a result (--jsonl streams results)
	if o.Glob != "" && !strings.Contains(o.Glob, "**") {
		i := strings.LastIndex(o.Glob, "/")
		deep := o.Glob[:i+1] + "**/" + o.Glob[i+1:]
		o2 := o
		o2.Glob, o2.MaxMatches = deep, 1
		if again, err := grep.Search(ctx, w.fs, root, o2); err == nil && len(again.Files) > 0 {
			hints = append(hints, fmt.Sprintf("hint: %s matches files at its own level only; %s (any depth) has matches", wording.ShellWord(p), wording.ShellWord(deep)))
		}
	}
	// A binary file named as the path is searched again, as -l, -c and
	// -q search it: "0 matches" is not the whole truth when it has some.
	if found.BinaryRoot != "" && !o.NamedBinary {
		o2 := o
		o2.NamedBinary, o2.MaxMatches, o2.MaxCount = true, 1, 1
		if again, err := grep.Search(ctx, w.fs, root, o2); err == nil && len(again.Files) > 0 {
			how := "its lines are not shown"
			if d == CLIFlags {
				how = "its lines are not shown; ws grep -c counts them"
			}
			hints = append(hints, "hint: "+wording.ShellWord(found.BinaryRoot)+" is a binary file with matches ("+how+")")
		}
	}
	// So are the binary files a walk passed over (the first few small
	// ones): a file that only looks binary (a NUL in a log, a text in
	// UTF-16) is not silently a "0 matches".
	if !o.NamedBinary {
		var with []string
		for _, rel := range found.BinaryNames {
			o2 := o
			o2.NamedBinary, o2.MaxMatches, o2.MaxCount, o2.Glob, o2.Filter = true, 1, 1, "", nil
			if again, err := grep.Search(ctx, w.fs, rel, o2); err == nil && len(again.Files) > 0 {
				with = append(with, rel)
			}
		}
		if len(with) > 0 {
			hints = append(hints, binaryHint(with, d))
		}
	}
	// The .git directories left out are searched too (for one match):
	// the hint comes only when one of them holds what was looked for.
	for _, dir := range found.GitDirs {
		o2 := o
		// The object store is left out: nothing in it is text, and it
		// is most of the files (thousands of loose objects).
		o2.MaxMatches, o2.NoGitObjects = 1, true
		if again, err := grep.Search(ctx, w.fs, dir, o2); err == nil && len(again.Files) > 0 {
			how := fmt.Sprintf("set path to %q", dir)
			if d == CLIFlags {
				how = "ws grep PATTERN " + wording.ShellName(dir)
			}
			hints = append(hints, "hint: "+wording.Name(dir)+" has matches, but .git directories are searched only when named ("+how+")")
			break
		}
	}
	return hints
}

// binaryHint says which binary files a search that found nothing passed
// over have matches, and, to a shell user, how to count them.
func binaryHint(with []string, d Dialect) string {
	if len(with) == 1 {
		how := "its lines are not shown"
		if d == CLIFlags {
			how += "; ws grep -c PATTERN " + wording.ShellName(with[0]) + " counts them"
		}
		return "hint: " + hintName(with[0], d) + ", a binary file the search passed over, has matches (" + how + ")"
	}
	how := "their lines are not shown"
	if d == CLIFlags {
		how += "; ws grep -c PATTERN with one of them as the PATH counts its matches"
	}
	names := make([]string, len(with))
	for i, rel := range with {
		names[i] = hintName(rel, d)
	}
	return fmt.Sprintf("hint: %d binary files the search passed over have matches: %s (%s)", len(with), strings.Join(names, ", "), how)
}

// hintName is a name found on disk as a hint names it: to a shell user as
// a word of a command; to a model in single quotes when it has a space or
// another character a shell would take apart, or, when ls would quote it
// (wording.Name), in that form, which a JSON string can give back.
func hintName(name string, d Dialect) string {
	if q := wording.Name(name); d != CLIFlags && q != name {
		return q
	}
	return wording.ShellName(name)
}

// asksLineEnd reports a pattern that asks for a line end, which a search
// a line at a time never finds: as RE2 reads it (grep.AsksLineEnd), else,
// for a pattern only the ECMAScript engine reads, one with a newline or
// `\n` (not `\\n`) anywhere.
func asksLineEnd(pattern string) bool {
	if asks, ok := grep.AsksLineEnd(pattern); ok {
		return asks
	}
	return hasNewline(pattern)
}

// hasNewline reports a pattern with a newline, or `\n` (not `\\n`).
func hasNewline(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\n':
			return true
		case '\\':
			if i+1 < len(pattern) && pattern[i+1] == 'n' {
				return true
			}
			i++ // the escaped character
		}
	}
	return false
}

// newlineHint says why a pattern with a line end found nothing, and what
// lets a match span lines: the subcommand's flag, or multiline=true where
// models are offered it (wsTools).
func newlineHint(d Dialect, wsTools bool) string {
	const why = "hint: the pattern asks for a line end, and lines are searched one at a time"
	switch {
	case d == CLIFlags:
		return why + "; -U (--multiline) lets a match span lines"
	case wsTools:
		return why + "; multiline=true lets a match span lines"
	}
	return why + ", so it cannot match"
}

// skippedNames names up to five skipped paths with their reasons, a long
// path shortened in its middle.
func skippedNames(sk []SkippedPath, d Dialect) string {
	var parts []string
	for i, s := range sk {
		if i == 5 {
			more := fmt.Sprintf("and %d more", len(sk)-5)
			if d == CLIFlags {
				more += " (--json lists them)"
			}
			parts = append(parts, more)
			break
		}
		parts = append(parts, wording.Middle(wording.Name(jsString([]byte(s.Path))), skippedNameMax)+": "+s.Reason)
	}
	return strings.Join(parts, "; ")
}

// skippedNameMax is the most bytes of a skipped path a summary shows;
// --json data has it whole. A path nested to PATH_MAX (tens of
// kilobytes) took the whole token budget, and the matches went.
const skippedNameMax = 160

// formatGrep lays out Mastra's textOut: textOut{the summary}, `---`, then the rows.
func (w *Workspace) formatGrep(res *GrepResult, files []*grep.File, m *grep.Matcher, before, after int, only bool, d Dialect) string {
	var rows []string
	hunks := 0
	emptyOnly := 0 // -o's matching lines whose matches were all empty: no rows
	for _, f := range files {
		n := f.Lines.Count()
		name := wording.Name(f.Rel)
		// Hunks: [hit-C, hit+C], merged when they touch or overlap.
		type span struct{ from, to int }
		var spans []span
		for _, h := range f.Hits {
			s := span{max(0, h.Line-before), min(n-1, h.Line+after)}
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
			if (before > 0 || after > 0) && hunks > 0 {
				rows = append(rows, "--")
			}
			hunks++
			for i := s.from; i <= s.to; i++ {
				line := f.Lines.Get(f.Buf, i)
				col, isHit := hitAt[i]
				if !isHit {
					rows = append(rows, fmt.Sprintf("%s:%d- %s", name, i+1, cutContext(line)))
					continue
				}
				if only {
					k := len(rows)
					if rows = appendOnlyRows(rows, name, i+1, line, col, m); len(rows) == k {
						emptyOnly++
					}
					continue
				}
				c := js.UTF16LenUTF8(line[:col]) + 1
				text := cutAround(line, c-1, js.UTF16LenUTF8(line[col:min(len(line), col+m.MatchLen(line, col))]))
				rows = append(rows, fmt.Sprintf("%s:%d:%d: %s", name, i+1, c, text))
			}
		}
		for _, h := range f.Hits {
			gm := matchOf(f, h)
			for i := max(0, h.Line-before); i <= min(n-1, h.Line+after); i++ {
				if i != h.Line {
					gm.Context = append(gm.Context, ContextLine{Line: i + 1, Text: Bytes(f.Lines.Get(f.Buf, i))})
				}
			}
			res.Matches = append(res.Matches, gm)
		}
	}
	total := len(res.Matches)
	summary := fmt.Sprintf("%d %s across %d %s", total, wording.Plural(total, "match", "matches"), res.Files, wording.Plural(res.Files, "file", "files"))
	if emptyOnly > 0 {
		// grep -o shows no row for an empty match ('^', 'x*'): say why
		// the rows are fewer than the count.
		summary += fmt.Sprintf(" (%d matched only an empty string, which shows no row)", emptyOnly)
	}
	if res.Truncated {
		summary += " (truncated at 1000; narrow the path or pattern, or set " + d.param("maxCount", "max-count") + ")"
	}
	if res.BinarySkipped > 0 {
		summary += fmt.Sprintf(" (%d binary %s skipped)", res.BinarySkipped, wording.Plural(res.BinarySkipped, "file", "files"))
	}
	if res.TargetNotFound {
		summary += " (target path not found: nothing searched)"
	}
	// Skipped paths are named: a subcommand says them in the summary; a
	// tool call keeps Mastra's summary and names them on the next line.
	head := ""
	if n := len(res.Skipped); n > 0 {
		names := skippedNames(res.Skipped, d)
		if d == CLIFlags {
			summary += fmt.Sprintf(" (%d %s skipped: %s)", n, wording.Plural(n, "path", "paths"), names)
		} else {
			summary += fmt.Sprintf(" (%d %s skipped: read error)", n, wording.Plural(n, "path", "paths"))
			head += "\nskipped: " + names
		}
	}
	for _, h := range res.Hints {
		head += "\n" + h
	}
	summary += head
	full := summary + "\n---"
	if len(rows) > 0 {
		full += "\n" + strings.Join(rows, "\n")
	}
	budget := w.cfg.MaxOutputTokens(Grep, defaultGrepTok)
	if !tokens.Exceeds(full, budget) {
		return full
	}
	res.OutputCut = true
	notice := func(shown int) string {
		if only {
			// -o's rows are matches, many to a line: --max-count, which
			// counts lines, may not cut them.
			return fmt.Sprintf("[output truncated: showing %d of %d matches; narrow the search with a more specific path or pattern]", shown, len(rows))
		}
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

// appendOnlyRows adds -o's rows for a matching line: one for each match
// in it (not only the first, as rg -o lists them), path:line:column: and
// the match's own text, cut as a long line is.
func appendOnlyRows(rows []string, rel string, n int, line []byte, col int, m *grep.Matcher) []string {
	for _, sp := range m.AppendInLine(nil, line, col, false) {
		if sp.End == sp.Start {
			continue // an empty match has no text to show
		}
		c := js.UTF16LenUTF8(line[:sp.Start]) + 1
		rows = append(rows, fmt.Sprintf("%s:%d:%d: %s", rel, n, c, cutContext(line[sp.Start:sp.End])))
	}
	return rows
}

// cutContext shortens a long context line as a matching line is cut
// when its match is near the start: its first 500 UTF-16 units and "...".
// Mastra shows context lines whole, so one long line (minified code, a
// lock file) next to a hit outweighed the token cap and took the hit's
// row with it. Only the head is decoded: 500 units never take more than
// 1500 bytes (a unit is at most three bytes, or one invalid sequence),
// so a megabyte line costs what a short one does.
func cutContext(line []byte) string {
	if len(line) <= grepMaxLineUnits {
		return jsString(line) // no more units than bytes
	}
	return cutAround(line[:min(len(line), 4*grepMaxLineUnits)], 0, 0)
}

// cutAround shortens a long matching line to 500 UTF-16 units. Mastra keeps
// the first 500 (so a match further right is cut away); here the window
// moves to show the match when it lies beyond, with "..." at each cut end.
// col and mlen count UTF-16 units of the decoded line. Only the window is
// decoded: a matching line of hundreds of megabytes (minified code, a
// one-line dump) is measured in one pass, not copied into a string, runes
// and UTF-16 (which took ten times the line's size in memory).
func cutAround(line []byte, col, mlen int) string {
	if len(line) <= grepMaxLineUnits {
		return jsString(line) // no more units than bytes
	}
	n := js.UTF16LenUTF8(line)
	if n <= grepMaxLineUnits {
		return jsString(line)
	}
	if col+max(mlen, 1) <= grepMaxLineUnits {
		return js.SliceUTF16UTF8(line, 0, grepMaxLineUnits) + "..."
	}
	start := max(0, col-100)
	end := min(n, start+grepMaxLineUnits)
	out := "..." + js.SliceUTF16UTF8(line, start, end)
	if end < n {
		out += "..."
	}
	return out
}
