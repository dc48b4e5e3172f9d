package grep

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// TestEventAppendJSON: the hand-written --jsonl encoder writes what
// encoding/json writes for every kind of event, over random paths and
// lines (invalid UTF-8, control characters, U+2028 included).
func TestEventAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	parts := []string{"a", "é", "\n", "\t", "\"", `\`, "<&>", "\x00", "\x7f", "\u2028", "\xff", "\xe2\x80", "日本", " "}
	text := func() rgData {
		var b strings.Builder
		for range rng.Intn(6) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		return rgData(b.String())
	}
	stats := func() rgStats {
		return rgStats{Elapsed: durationOf(time.Duration(rng.Int63())), Searches: rng.Int(), SearchesWithMatch: rng.Intn(9),
			BytesSearched: rng.Int63(), BytesPrinted: rng.Int63n(1 << 40), MatchedLines: rng.Int(), Matches: rng.Intn(3)}
	}
	for i := range 3000 {
		var ev Event
		switch i % 5 {
		case 0:
			ev = Event{"begin", rgBegin{text()}}
		case 1, 2:
			l := rgLine{Path: text(), Lines: text(), LineNumber: rng.Int(), AbsoluteOffset: rng.Int63()}
			if i%5 == 1 {
				l.Submatches = []rgSubmatch{}
			}
			for range rng.Intn(3) {
				l.Submatches = append(l.Submatches, rgSubmatch{Match: text(), Start: rng.Intn(100), End: rng.Intn(100)})
			}
			ev = Event{[]string{"match", "context"}[rng.Intn(2)], l}
			if rng.Intn(2) == 0 {
				ev.Data = &l // as the stream sends it
			}
		case 3:
			e := rgEnd{Path: text(), Stats: stats()}
			if rng.Intn(2) == 0 {
				off := rng.Int63()
				e.BinaryOffset = &off
			}
			ev = Event{"end", e}
		case 4:
			ev = Event{"summary", rgSummary{ElapsedTotal: durationOf(time.Duration(rng.Int63n(1e12))), Stats: stats()}}
		}
		want, err := jsonenc.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Fatalf("event %d:\n got %s\nwant x%s", i, got, want)
		}
	}
	ev := Event{"other", map[string]int{"n": 1}}
	if got := ev.AppendJSON(nil); string(got) != `{"type":"other","data":{"n":1}}` {
		t.Fatalf("fallback: %s", got)
	}
}

// TestSpanLinesTimeout: when finding a -U search's matches again to group
// them into runs (spanLines) runs out of time, the stream records the
// timeout, with the file and the line it had reached, for the search to
// fail on, rather than send the file's runs short without a word. The
// first pass is stood in for by the file's hits (the real one would have
// timed out too: the pattern runs away on the line after the first).
func TestSpanLinesTimeout(t *testing.T) {
	m, err := CompileWith(`x\n|(a+)+(?=b)`, CompileOptions{CaseSensitive: true, Multiline: true})
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte("x\n" + strings.Repeat("a", 40) + "\n")
	var sent []string
	s := &RGStream{m: m, emit: func(e Event) { sent = append(sent, e.Type) }}
	s.spanLines(&File{Rel: "f.txt", Buf: buf, Lines: IndexLines(buf), Hits: []Hit{{Line: 0}, {Line: 1}}}, rgData("f.txt"))
	if s.timeout == nil || s.timeout.Rel != "f.txt" || s.timeout.Line != 1 || s.timeout.Limit != SearchLimit(len(buf)) {
		t.Fatalf("timeout %+v, want f.txt line 1 (the last line sent) and the limit for %d bytes", s.timeout, len(buf))
	}
	if strings.Join(sent, " ") != "match" {
		t.Errorf("sent %q, want the run found before the timeout", sent)
	}
}
