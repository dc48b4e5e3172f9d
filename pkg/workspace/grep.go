package workspace

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/dlclark/regexp2/v2"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/tokens"
	"golang.org/x/sys/unix"
)

// GrepRequest is the input of grep (mastra_workspace_grep).
type GrepRequest struct {
	Pattern       string   `json:"pattern" desc:"Regular expression to find (Go RE2 syntax; lookaround and backreferences also work). Only the first match of each line is reported."`
	Path          string   `json:"path,omitempty" default:"\".\"" desc:"File, directory or glob to search (e.g. 'src', 'src/**/*.ts'), relative to the workspace root."`
	ContextLines  *float64 `json:"contextLines,omitempty" default:"0" desc:"Lines of context to show around each match."`
	MaxCount      *float64 `json:"maxCount,omitempty" desc:"At most this many matching lines per file."`
	CaseSensitive *bool    `json:"caseSensitive,omitempty" default:"true" desc:"Match case exactly (default true)."`
	IncludeHidden *bool    `json:"includeHidden,omitempty" default:"false" desc:"Also search files and directories whose names start with a dot."`
}

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
	text           string
}

// Text is the tool's output as the model sees it.
func (r *GrepResult) Text() string { return r.text }

const (
	grepMaxMatches   = 1000
	grepMaxLineUnits = 500
	grepMaxPattern   = 1000
	defaultGrepTok   = 2000
)

// matcher finds the first match of a line: Go's RE2 engine, or an
// ECMAScript engine for patterns that need lookaround or backreferences.
type matcher struct {
	re  *regexp.Regexp  // multi-line mode, for whole-buffer scanning
	re1 *regexp.Regexp  // single-line, for one line
	es  *regexp2.Regexp // the fallback
	// literal is the whole pattern when it is a plain string: searched
	// with bytes.Index, without the regexp machine.
	literal []byte
	// required is a string every match contains: a file without it is
	// passed over after one fast search.
	required []byte
}

func compileMatcher(pattern string, caseSensitive bool) (*matcher, error) {
	flags := ""
	if !caseSensitive {
		flags = "i"
	}
	re1, err := regexp.Compile(prefixFlags(flags, pattern))
	if err == nil {
		m := &matcher{re: regexp.MustCompile(prefixFlags(flags+"m", pattern)), re1: re1}
		if caseSensitive {
			if lit, complete := re1.LiteralPrefix(); complete && lit != "" {
				m.literal = []byte(lit)
			}
			m.required = requiredLiteral(pattern)
		}
		return m, nil
	}
	opts := regexp2.ECMAScript
	if !caseSensitive {
		opts |= regexp2.IgnoreCase
	}
	es, err2 := regexp2.Compile(pattern, opts)
	if err2 != nil {
		return nil, errs.InvalidRegex(err.Error())
	}
	es.MatchTimeout = 5 * time.Second
	return &matcher{es: es}, nil
}

func prefixFlags(flags, pattern string) string {
	if flags == "" {
		return pattern
	}
	return "(?" + flags + ")" + pattern
}

// requiredLiteral finds a string of at least three bytes that every match
// of pattern must contain (the longest literal of a top-level
// concatenation), or nil.
func requiredLiteral(pattern string) []byte {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	var best []rune
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(r.Rune) > len(best) {
			best = r.Rune
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture && len(sub.Sub) == 1 {
				sub = sub.Sub[0]
			}
			consider(sub)
		}
	}
	if b := []byte(string(best)); len(b) >= 3 {
		return b
	}
	return nil
}

// firstInLine returns the byte offset of the first match in line, or -1.
func (m *matcher) firstInLine(line []byte) int {
	if m.es != nil {
		mt, err := m.es.FindStringMatch(string(line))
		if err != nil || mt == nil {
			return -1
		}
		i, _ := mt.ByteRange()
		return i
	}
	loc := m.re1.FindIndex(line)
	if loc == nil {
		return -1
	}
	return loc[0]
}

// hit is a matching line of one file.
type hit struct {
	line int // 0-based
	col  int // byte offset in the line
}

// scanBuffer finds the first match of each line of buf, at most limit
// lines (0: no limit). RE2 scans the whole buffer at once (a file without
// a match costs one search), counting newlines only up to each match; a
// match that runs past its line's end is checked against that line alone.
func (m *matcher) scanBuffer(buf []byte, limit int) []hit {
	var hits []hit
	if m.es != nil {
		li := indexLines(buf)
		for i := 0; i < li.count(); i++ {
			if c := m.firstInLine(li.get(buf, i)); c >= 0 {
				hits = append(hits, hit{i, c})
				if limit > 0 && len(hits) >= limit {
					break
				}
			}
		}
		return hits
	}
	if len(m.required) > 0 && !bytes.Contains(buf, m.required) {
		return nil
	}
	pos, line := 0, 0 // pos starts line (0-based)
	for pos < len(buf) {
		var start, end int
		if m.literal != nil {
			i := bytes.Index(buf[pos:], m.literal)
			if i < 0 {
				break
			}
			start, end = pos+i, pos+i+len(m.literal)
		} else {
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				break
			}
			start, end = pos+loc[0], pos+loc[1]
		}
		ls := pos
		if k := bytes.LastIndexByte(buf[pos:start], '\n'); k >= 0 {
			line += bytes.Count(buf[pos:start], []byte{'\n'})
			ls = pos + k + 1
		}
		le := len(buf)
		if k := bytes.IndexByte(buf[start:], '\n'); k >= 0 {
			le = start + k
		}
		if start == len(buf) && ls == start {
			break // an empty match after the final newline: no line there
		}
		col := start - ls
		if end > le {
			col = m.firstInLine(buf[ls:le])
		}
		if col >= 0 {
			hits = append(hits, hit{line, col})
			if limit > 0 && len(hits) >= limit {
				break
			}
		}
		if le >= len(buf) {
			break
		}
		pos, line = le+1, line+1
	}
	return hits
}

// lineIndex knows where the lines of a buffer start (POSIX lines: a final
// newline starts no line).
type lineIndex struct {
	starts []int
	size   int
}

func indexLines(buf []byte) *lineIndex {
	li := &lineIndex{size: len(buf), starts: make([]int, 0, 64)}
	if len(buf) == 0 {
		return li
	}
	li.starts = append(li.starts, 0)
	for off := 0; ; {
		i := bytes.IndexByte(buf[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(buf) {
			break
		}
		li.starts = append(li.starts, off)
	}
	return li
}

func (li *lineIndex) count() int { return len(li.starts) }

// bounds is the line's start and end (the end excludes the newline).
func (li *lineIndex) bounds(buf []byte, i int) (int, int) {
	s := li.starts[i]
	e := li.size
	if i+1 < len(li.starts) {
		e = li.starts[i+1] - 1
	} else if e > s && buf[e-1] == '\n' {
		e--
	}
	return s, e
}

func (li *lineIndex) get(buf []byte, i int) []byte {
	s, e := li.bounds(buf, i)
	return buf[s:e]
}

// grepFile is a file to search, in walk order.
type grepFile struct {
	rel  string // workspace-relative
	abs  fsroot.Loc
	hits []hit
	buf  []byte
	li   *lineIndex
	bin  bool
	err  bool
}

// Grep searches files for a regular expression, in parallel, and reports
// the first match of each matching line with Mastra's layout.
func (w *Workspace) Grep(ctx context.Context, req GrepRequest) (*GrepResult, error) {
	if n := js.UTF16Len(req.Pattern); n > grepMaxPattern {
		return nil, errs.PatternTooLong(n)
	}
	m, err := compileMatcher(req.Pattern, req.CaseSensitive == nil || *req.CaseSensitive)
	if err != nil {
		return nil, err
	}
	p := req.Path
	if p == "" {
		p = "."
	}
	ctxLines := 0
	if req.ContextLines != nil && *req.ContextLines > 0 {
		ctxLines = int(*req.ContextLines)
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
	g := &grepRun{w: w, m: m, maxCount: maxCount, hidden: req.IncludeHidden != nil && *req.IncludeHidden, res: &GrepResult{Matches: []GrepMatch{}}}
	root := p
	if glob.Has(p) {
		root = glob.Base(p)
		g.glob = strings.TrimPrefix(strings.TrimPrefix(filepathToSlash(p), "./"), "/")
	}
	g.run(ctx, root)
	res := g.res
	res.text = w.formatGrep(g, ctxLines)
	return res, nil
}

type grepRun struct {
	w        *Workspace
	m        *matcher
	maxCount int
	hidden   bool
	glob     string
	res      *GrepResult
	files    []*grepFile // files with hits, in walk order
}

// run walks root and scans its files with one worker per core; results
// are taken in walk order so the 1000-match cap stops at the same place
// every time.
func (g *grepRun) run(ctx context.Context, root string) {
	t, err := g.w.fs.Resolve(root)
	if err != nil {
		g.res.ReadErrors++
		return
	}
	l := t.Loc()
	st, err := g.w.fs.Stat(l)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			g.res.TargetNotFound = true
		} else {
			g.res.ReadErrors++
		}
		return
	}
	if path.Base(filepathToSlash(string(t.Rel()))) == ".git" && st.IsDir() {
		return
	}
	// Files travel in batches, which keeps channel traffic (and goroutine
	// hand-offs) low when most files are small.
	work := make(chan *grepBatch, 64)
	done := make(chan *grepBatch, 64)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for b := range work {
				for _, f := range b.files {
					if ctx.Err() == nil {
						g.scan(f)
					}
				}
				done <- b
			}
		}()
	}
	walkErrors := 0 // written by the walker only; read after done is closed
	go func() {
		q := &batcher{out: work}
		if st.IsDir() {
			opts := fsroot.WalkOptions{Hidden: g.hidden, SkipGit: true, Links: true, Ignore: g.w.fs.IgnoreFor(t)}
			n, err := g.w.fs.Walk(ctx, l, string(t.Rel()), opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
				if e.IsDir {
					return true, nil // symlinked directories are not entered
				}
				if g.glob != "" {
					if ok, _ := doublestar.Match(g.glob, e.Rel()); !ok {
						return false, nil
					}
				}
				q.add(&grepFile{rel: e.Rel(), abs: e.Loc()})
				return false, nil
			})
			walkErrors += n
			if err != nil {
				walkErrors++
			}
		} else {
			q.add(&grepFile{rel: string(t.Rel()), abs: l})
		}
		q.flush()
		close(work)
		workers.Wait()
		close(done)
	}()
	// Collect in walk order.
	pending := map[int]*grepBatch{}
	next, total := 0, 0
	for b := range done {
		pending[b.seq] = b
		for {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for _, f := range b.files {
				if total >= grepMaxMatches {
					break
				}
				switch {
				case f.err:
					g.res.ReadErrors++
				case f.bin:
					g.res.BinarySkipped++
				case len(f.hits) > 0:
					if total+len(f.hits) > grepMaxMatches {
						f.hits = f.hits[:grepMaxMatches-total]
					}
					total += len(f.hits)
					g.files = append(g.files, f)
					if total >= grepMaxMatches {
						g.res.Truncated = true
						cancel()
					}
				}
			}
		}
	}
	g.res.ReadErrors += walkErrors
}

// grepBatch is a run of files in walk order.
type grepBatch struct {
	seq   int
	files []*grepFile
}

// batcher groups the walker's files into batches.
type batcher struct {
	out chan<- *grepBatch
	cur *grepBatch
	seq int
}

const grepBatchSize = 32

func (q *batcher) add(f *grepFile) {
	if q.cur == nil {
		q.cur = &grepBatch{seq: q.seq, files: make([]*grepFile, 0, grepBatchSize)}
		q.seq++
	}
	q.cur.files = append(q.cur.files, f)
	if len(q.cur.files) == grepBatchSize {
		q.flush()
	}
}

func (q *batcher) flush() {
	if q.cur != nil {
		q.out <- q.cur
		q.cur = nil
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// getBuf returns an empty buffer with room for at least n bytes.
func getBuf(n int) []byte {
	b := *(bufPool.Get().(*[]byte))
	if cap(b) < n {
		putBuf(b)
		return make([]byte, 0, n)
	}
	return b[:0]
}

func putBuf(b []byte) {
	if cap(b) > 8<<20 {
		return // don't keep huge buffers around
	}
	b = b[:0]
	bufPool.Put(&b)
}

// readAllSized reads the file open at fd, whose size fstat gave: one read
// when it has not changed since, more only if it grew.
func readAllSized(fd int, size int64) ([]byte, error) {
	buf := getBuf(int(size) + 1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		buf = buf[:len(buf)+n]
		if n == 0 || int64(len(buf)) == size && len(buf) < cap(buf) {
			return buf, nil
		}
	}
}

// scan reads one file once and finds its matching lines. It uses raw
// system calls: an *os.File would add an fcntl and an epoll_ctl per file.
func (g *grepRun) scan(f *grepFile) {
	fd, err := g.w.fs.Open(f.abs, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		f.err = true
		return
	}
	defer unix.Close(fd)
	st, err := fsroot.Fstat(fd)
	if err != nil || !st.Mode.IsRegular() {
		f.err = err != nil // FIFOs, sockets, devices and directories are passed over
		return
	}
	// Big files are judged by their head before the rest is read: a disk
	// image is skipped after 8 KiB, not after reading gigabytes.
	if st.Size > 1<<20 {
		var head [media.SniffLen]byte
		n, err := unix.Pread(fd, head[:], 0)
		if err != nil {
			f.err = true
			return
		}
		if isBinary(f.rel, head[:n]) {
			f.bin = true
			return
		}
	}
	buf, err := readAllSized(fd, st.Size)
	if err != nil {
		putBuf(buf)
		f.err = true
		return
	}
	if st.Size <= 1<<20 && isBinary(f.rel, buf[:min(len(buf), media.SniffLen)]) {
		putBuf(buf)
		f.bin = true
		return
	}
	f.hits = g.m.scanBuffer(buf, g.maxCount)
	if len(f.hits) > 0 {
		f.buf, f.li = buf, indexLines(buf)
	} else {
		putBuf(buf)
	}
}

// isBinary decides by content: a NUL byte in the first 8 KiB, or content
// that sniffs as a binary type. The sniffer runs only when it could say so:
// on content that is not UTF-8, or whose first bytes hold control
// characters or a PDF signature (where formats put their magic numbers).
func isBinary(name string, head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	valid := utf8.Valid(head) || len(head) == media.SniffLen && utf8.Valid(trimPartialRune(head))
	if valid && media.LooksText(head[:min(len(head), 16)]) && !bytes.HasPrefix(head, []byte("%PDF")) {
		return false
	}
	return !media.Classify(name, head).Text
}

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end of
// a head read.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			return b[:len(b)-i]
		}
	}
	return b
}

// formatGrep lays out Mastra's text: the summary, `---`, then the rows.
func (w *Workspace) formatGrep(g *grepRun, ctxLines int) string {
	res := g.res
	var rows []string
	hunks := 0
	for _, f := range g.files {
		res.Files++
		n := f.li.count()
		// Hunks: [hit-C, hit+C], merged when they touch or overlap.
		type span struct{ from, to int }
		var spans []span
		for _, h := range f.hits {
			s := span{max(0, h.line-ctxLines), min(n-1, h.line+ctxLines)}
			if k := len(spans); k > 0 && s.from <= spans[k-1].to+1 {
				spans[k-1].to = max(spans[k-1].to, s.to)
			} else {
				spans = append(spans, s)
			}
		}
		hitAt := map[int]int{}
		for _, h := range f.hits {
			hitAt[h.line] = h.col
		}
		for _, s := range spans {
			if ctxLines > 0 && hunks > 0 {
				rows = append(rows, "--")
			}
			hunks++
			for i := s.from; i <= s.to; i++ {
				line := f.li.get(f.buf, i)
				col, isHit := hitAt[i]
				if !isHit {
					rows = append(rows, fmt.Sprintf("%s:%d- %s", f.rel, i+1, jsString(line)))
					continue
				}
				c := js.UTF16Len(jsString(line[:col])) + 1
				text := cutAround(jsString(line), c-1, js.UTF16Len(jsString(line[col:min(len(line), col+matchLen(g.m, line, col))])))
				rows = append(rows, fmt.Sprintf("%s:%d:%d: %s", f.rel, i+1, c, text))
			}
		}
		for _, h := range f.hits {
			gm := GrepMatch{Path: Bytes(f.rel), Line: h.line + 1, Column: js.UTF16Len(jsString(f.li.get(f.buf, h.line)[:h.col])) + 1, Text: Bytes(f.li.get(f.buf, h.line))}
			for i := max(0, h.line-ctxLines); i <= min(n-1, h.line+ctxLines); i++ {
				if i != h.line {
					gm.Context = append(gm.Context, ContextLine{Line: i + 1, Text: Bytes(f.li.get(f.buf, i))})
				}
			}
			res.Matches = append(res.Matches, gm)
		}
	}
	total := len(res.Matches)
	summary := fmt.Sprintf("%d %s across %d %s", total, pluralWord(total, "match", "matches"), res.Files, pluralWord(res.Files, "file", "files"))
	if res.Truncated {
		summary += " (truncated at 1000; narrow the path or pattern, or set maxCount)"
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
	budget := w.cfg.MaxOutputTokens(config.Grep, defaultGrepTok)
	if tokens.Estimate(full) <= budget {
		return full
	}
	res.OutputCut = true
	notice := func(shown int) string {
		return fmt.Sprintf("[output truncated: showing %d of %d lines; narrow the search with a more specific path or pattern, or set maxCount]", shown, len(rows))
	}
	used := tokens.Estimate(summary+"\n---") + tokens.Estimate(notice(len(rows)))
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

// matchLen is the byte length of the match found at col (at least 0).
func matchLen(m *matcher, line []byte, col int) int {
	if m.re1 != nil {
		if loc := m.re1.FindIndex(line[col:]); loc != nil && loc[0] == 0 {
			return loc[1]
		}
		return 0
	}
	if mt, err := m.es.FindStringMatch(string(line)); err == nil && mt != nil {
		_, n := mt.ByteRange()
		return n
	}
	return 0
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
