package grep

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// Event is one message of ws grep --jsonl, in ripgrep's --json shapes
// (begin, match, context, end, summary), so tools that read rg's JSON
// read ws's.
type Event struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// rgData is ripgrep's arbitrary data: {"text": …} when it is UTF-8,
// {"bytes": base64} otherwise.
type rgData []byte

// MarshalJSON goes through encoding/json, not appendJSON, so that the
// tests can hold the one against the other.
func (d rgData) MarshalJSON() ([]byte, error) {
	if !utf8.Valid(d) {
		return jsonenc.Base64(d)
	}
	text, err := jsonenc.Marshal(string(d))
	return []byte(`{"text":` + string(text) + `}`), err
}

func (d rgData) appendJSON(b []byte) []byte {
	if utf8.Valid(d) {
		b = append(b, `{"text":`...)
		return append(jsonenc.AppendString(b, string(d)), '}')
	}
	return jsonenc.AppendBytes(b, d)
}

// AppendJSON appends the event as jsonenc.Marshal writes it, byte for
// byte, without reflection: --jsonl writes one event per line found, and
// encoding/json took three quarters of such a search.
func (e Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonenc.AppendString(b, e.Type)
	b = append(b, `,"data":`...)
	switch d := e.Data.(type) {
	case *rgLine: // as the stream sends it
		b = d.appendJSON(b)
	case rgBegin:
		b = append(b, `{"path":`...)
		b = append(d.Path.appendJSON(b), '}')
	case rgEnd:
		b = append(b, `{"path":`...)
		b = d.Path.appendJSON(b)
		b = append(b, `,"binary_offset":`...)
		if d.BinaryOffset == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, *d.BinaryOffset, 10)
		}
		b = append(b, `,"stats":`...)
		b = append(d.Stats.appendJSON(b), '}')
	case rgSummary:
		b = append(b, `{"elapsed_total":`...)
		b = d.ElapsedTotal.appendJSON(b)
		b = append(b, `,"stats":`...)
		b = append(d.Stats.appendJSON(b), '}')
	default:
		data, err := jsonenc.Marshal(d)
		if err != nil {
			data = []byte("null")
		}
		b = append(b, data...)
	}
	return append(b, '}')
}

func (l rgLine) appendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = l.Path.appendJSON(b)
	b = append(b, `,"lines":`...)
	b = l.Lines.appendJSON(b)
	b = append(b, `,"line_number":`...)
	b = strconv.AppendInt(b, int64(l.LineNumber), 10)
	b = append(b, `,"absolute_offset":`...)
	b = strconv.AppendInt(b, l.AbsoluteOffset, 10)
	b = append(b, `,"submatches":`...)
	if l.Submatches == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range l.Submatches {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"match":`...)
			b = m.Match.appendJSON(b)
			b = append(b, `,"start":`...)
			b = strconv.AppendInt(b, int64(m.Start), 10)
			b = append(b, `,"end":`...)
			b = strconv.AppendInt(b, int64(m.End), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

type rgBegin struct {
	Path rgData `json:"path"`
}

type rgSubmatch struct {
	Match rgData `json:"match"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

type rgLine struct {
	Path           rgData       `json:"path"`
	Lines          rgData       `json:"lines"`
	LineNumber     int          `json:"line_number"`
	AbsoluteOffset int64        `json:"absolute_offset"`
	Submatches     []rgSubmatch `json:"submatches"`
}

// lineEvent is a match or context message with room for its submatch.
type lineEvent struct {
	rgLine
	sub [1]rgSubmatch
}

type rgDuration struct {
	Secs  int64  `json:"secs"`
	Nanos int    `json:"nanos"`
	Human string `json:"human"`
}

func durationOf(d time.Duration) rgDuration {
	return rgDuration{Secs: int64(d / time.Second), Nanos: int(d % time.Second), Human: fmt.Sprintf("%.6fs", d.Seconds())}
}

func (d rgDuration) appendJSON(b []byte) []byte {
	b = append(b, `{"secs":`...)
	b = strconv.AppendInt(b, d.Secs, 10)
	b = append(b, `,"nanos":`...)
	b = strconv.AppendInt(b, int64(d.Nanos), 10)
	b = append(b, `,"human":`...)
	b = jsonenc.AppendString(b, d.Human)
	return append(b, '}')
}

type rgStats struct {
	Elapsed           rgDuration `json:"elapsed"`
	Searches          int        `json:"searches"`
	SearchesWithMatch int        `json:"searches_with_match"`
	BytesSearched     int64      `json:"bytes_searched"`
	BytesPrinted      int64      `json:"bytes_printed"`
	MatchedLines      int        `json:"matched_lines"`
	Matches           int        `json:"matches"`
}

func (st rgStats) appendJSON(b []byte) []byte {
	b = append(b, `{"elapsed":`...)
	b = st.Elapsed.appendJSON(b)
	for _, f := range [...]struct {
		name string
		n    int64
	}{
		{`,"searches":`, int64(st.Searches)},
		{`,"searches_with_match":`, int64(st.SearchesWithMatch)},
		{`,"bytes_searched":`, st.BytesSearched},
		{`,"bytes_printed":`, st.BytesPrinted},
		{`,"matched_lines":`, int64(st.MatchedLines)},
		{`,"matches":`, int64(st.Matches)},
	} {
		b = strconv.AppendInt(append(b, f.name...), f.n, 10)
	}
	return append(b, '}')
}

type rgEnd struct {
	Path         rgData  `json:"path"`
	BinaryOffset *int64  `json:"binary_offset"`
	Stats        rgStats `json:"stats"`
}

type rgSummary struct {
	ElapsedTotal rgDuration `json:"elapsed_total"`
	Stats        rgStats    `json:"stats"`
}

// RGStream turns the files of a search into ripgrep's --json messages as
// they are found (Options.OnFile, with Parts and Forget), byte for byte as
// rg writes them but for the elapsed times; total gathers the summary's
// figures.
type RGStream struct {
	emit          func(Event)
	m             *Matcher
	before, after int
	start         time.Time
	now           func() time.Time
	total         rgStats
	cur           rgStats // of the file being sent
	spans         []Span  // a line's matches, reused line after line
	// timeout is set when finding a multi-line search's matches again (to
	// group them) ran out of time where the search itself had not: the
	// search then fails as a search that timed out does, rather than send
	// a file's runs short without a word.
	timeout *Timeout
}

// NewRGStream is the stream of a search with m and before and after lines
// of context, sending its messages to emit; now gives the elapsed times.
func NewRGStream(emit func(Event), m *Matcher, before, after int, now func() time.Time) *RGStream {
	return &RGStream{emit: emit, m: m, before: before, after: after, start: now(), now: now}
}

// File sends one file's begin, its matching and context lines, and end;
// a file in parts (Options.Parts) sends begin with its first part
// and end with its last.
func (s *RGStream) File(f *File) {
	path := rgData(f.Rel)
	if !f.Continued {
		s.emit(Event{"begin", rgBegin{path}})
		s.cur = rgStats{Elapsed: durationOf(0), Searches: 1, SearchesWithMatch: 1}
	}
	if s.m.CrossesLines() {
		s.spanLines(f, path)
	} else {
		s.lines(f, path)
	}
	if f.More {
		return
	}
	st := s.cur
	st.BytesSearched = f.Size
	s.emit(Event{"end", rgEnd{Path: path, Stats: st}})
	s.total.Searches++
	s.total.SearchesWithMatch++
	s.total.BytesSearched += st.BytesSearched
	s.total.BytesPrinted += st.BytesPrinted
	s.total.MatchedLines += st.MatchedLines
	s.total.Matches += st.Matches
}

// lines sends a file's (or part's) matching lines and their context, a
// message a line.
func (s *RGStream) lines(f *File, path rgData) {
	s.cur.MatchedLines += len(f.Hits)
	k := 0 // the first hit not passed
	send := func(i int) {
		start, end := f.Lines.Bounds(f.Buf, i)
		if end < len(f.Buf) && f.Buf[end] == '\n' {
			end++ // rg's lines keep their newline
		}
		// One allocation a line: the event and room for its one
		// submatch.
		ev := &lineEvent{rgLine: rgLine{Path: path, Lines: rgData(f.Buf[start:end]), LineNumber: i + 1, AbsoluteOffset: f.Lines.Offset(i)}}
		ev.Submatches = ev.sub[:0]
		typ := "context"
		for k < len(f.Hits) && f.Hits[k].Line < i {
			k++
		}
		if k < len(f.Hits) && f.Hits[k].Line == i {
			col := f.Hits[k].Col
			typ = "match"
			line := f.Lines.Get(f.Buf, i)
			// Every match of the line, as rg lists them.
			s.spans = s.m.AppendInLine(s.spans[:0], line, col, end == len(f.Buf) && (end == 0 || f.Buf[end-1] != '\n'))
			for _, sp := range s.spans {
				ev.Submatches = append(ev.Submatches, rgSubmatch{Match: rgData(line[sp.Start:sp.End]), Start: sp.Start, End: sp.End})
			}
			s.cur.Matches += len(s.spans)
		}
		s.emit(Event{typ, &ev.rgLine})
		s.cur.BytesPrinted += int64(end - start)
	}
	if held := f.Lines.Held(); held != nil {
		// Only the lines to print are held: each hunk's, in order.
		for _, i := range held {
			send(i)
		}
	} else {
		n := f.Lines.Count()
		last := -1 // the last line sent
		for _, h := range f.Hits {
			for i := max(last+1, h.Line-s.before); i <= min(n-1, h.Line+s.after); i++ {
				send(i)
				last = i
			}
		}
	}
}

// spanLines sends a multi-line search's matches as rg -U --json does: one
// message for each run of lines that matches cover, where a match that
// starts on the line after another's last (or on it) joins that run, with
// each match a submatch (offsets from the run's first byte); context
// lines each a message. The file is whole (a multi-line search reads it
// so), and its matches are found again in it, up to the last line of its
// hits (-m).
func (s *RGStream) spanLines(f *File, path rgData) {
	type run struct {
		first, last int
		subs        []rgSubmatch
	}
	if len(f.Hits) == 0 {
		return
	}
	lastHit := f.Hits[len(f.Hits)-1].Line
	var runs []run
	err := s.m.Spans(f.Buf, func(start, end int) bool {
		first := f.Lines.LineOf(start)
		if first > lastHit {
			return false
		}
		last := first
		if end > start {
			last = f.Lines.LineOf(end - 1)
		}
		if k := len(runs) - 1; k >= 0 && first <= runs[k].last+1 {
			runs[k].last = max(runs[k].last, last)
		} else {
			runs = append(runs, run{first: first, last: last})
		}
		r := &runs[len(runs)-1]
		from := int(f.Lines.Offset(r.first))
		r.subs = append(r.subs, rgSubmatch{Match: rgData(f.Buf[start:end]), Start: start - from, End: end - from})
		s.cur.Matches++
		return true
	})
	if err != nil && s.timeout == nil {
		line := f.Hits[0].Line
		if k := len(runs) - 1; k >= 0 {
			line = runs[k].last
		}
		s.timeout = &Timeout{Rel: f.Rel, Line: line + 1, Limit: SearchLimit(len(f.Buf))}
	}
	n := f.Lines.Count()
	sent := -1 // the last line sent
	// send sends lines from to to (one message when sub is set).
	send := func(from, to int, typ string, subs []rgSubmatch) {
		start, _ := f.Lines.Bounds(f.Buf, from)
		_, end := f.Lines.Bounds(f.Buf, to)
		if end < len(f.Buf) && f.Buf[end] == '\n' {
			end++ // rg's lines keep their newline
		}
		if subs == nil {
			subs = []rgSubmatch{}
		}
		s.emit(Event{typ, &rgLine{Path: path, Lines: rgData(f.Buf[start:end]), LineNumber: from + 1, AbsoluteOffset: int64(start), Submatches: subs}})
		s.cur.BytesPrinted += int64(end - start)
		sent = to
	}
	context := func(from, to int) {
		for i := max(from, sent+1); i <= to; i++ {
			send(i, i, "context", nil)
		}
	}
	for i, r := range runs {
		if i > 0 {
			context(runs[i-1].last+1, min(runs[i-1].last+s.after, r.first-1))
		}
		context(r.first-s.before, r.first-1)
		send(r.first, r.last, "match", r.subs)
		s.cur.MatchedLines += r.last - r.first + 1
	}
	if k := len(runs) - 1; k >= 0 {
		context(runs[k].last+1, min(runs[k].last+s.after, n-1))
	}
}

// Timeout is the stream's timeout, if there is a stream and it had one.
func (s *RGStream) Timeout() *Timeout {
	if s == nil {
		return nil
	}
	return s.timeout
}

// Summary sends the last message.
func (s *RGStream) Summary() {
	el := durationOf(s.now().Sub(s.start))
	s.total.Elapsed = el
	s.emit(Event{"summary", rgSummary{ElapsedTotal: el, Stats: s.total}})
}
