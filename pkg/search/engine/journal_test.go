package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/search"
)

// TestAddJournal checks that a document added to an index that is there
// goes to the journal, not into a rewrite of the index file (which made
// one document cost the whole index), and that what searches see is what
// a rewrite would give: the same documents, scores and order (a replaced
// document moves to the end), the count the index tool reports, and the
// journal taken in by the next search.
func TestAddJournal(t *testing.T) {
	_, fs := testRoot(t, "docs/a.md", "docs/b.md")
	ctx := context.Background()
	journaled := testEngine(t, fs, "docs")
	rewritten := testEngine(t, fs, "docs")
	rewritten.o.StateDir = "" // no state: every Add rebuilds the index in memory
	// The first Add makes the index file; the journal only extends one.
	docs := []search.Doc{
		{ID: "n/1", Content: "zebra alpha beta", Source: -1},
		{ID: "n/2", Content: "zebra zebra gamma", Source: -1, Meta: []byte(`{"k":"v"}`)},
		{ID: "n/1", Content: "zebra delta", Source: -1}, // replaced: moves to the end
		{ID: "n/3", Content: "alpha zebra", Source: -1},
		{ID: "docs/a.md", Content: "zebra over a file's document", Source: -1},
		{ID: "n/5", Content: "tie tie", Source: -1},
		{ID: "n/4", Content: "tie tie", Source: -1}, // ties keep the indexing order
	}
	index := filepath.Join(journaled.indexDir(), search.IndexFile)
	var before []byte
	for i, d := range docs {
		n, err := journaled.Add(ctx, d)
		must(t, err)
		if want := []int{3, 4, 4, 5, 5, 6, 7}[i]; n != want {
			t.Errorf("Add %d: %d documents, want %d", i, n, want)
		}
		data, err := os.ReadFile(index)
		must(t, err)
		if i > 0 && !bytes.Equal(data, before) {
			t.Errorf("Add %d rewrote the index file", i)
		}
		before = data
	}
	if _, err := os.Stat(journaled.store().LogPath()); err != nil {
		t.Fatalf("no journal: %v", err)
	}
	if st := journaled.Stats(); st.Documents != 7 {
		t.Errorf("Stats: %d documents, want 7", st.Documents)
	}
	// The same documents, added to an index rewritten each time.
	x := search.NewIndexWith(search.DefaultParams())
	rewritten.autoIndex(ctx, x, nil)
	for _, d := range docs {
		x.Add(d)
	}
	journal, err := os.ReadFile(journaled.store().LogPath())
	must(t, err)
	for _, q := range []string{"zebra alpha tie content"} {
		want := hitsText(x.Search(q, 100, 0))
		hits, err := journaled.Search(ctx, q, search.ModeBM25, 100, nil)
		must(t, err)
		var got []search.Hit
		for _, h := range hits {
			got = append(got, h.Hit)
		}
		if hitsText(got) != want {
			t.Errorf("journaled search %q:\n%s\nwant\n%s", q, hitsText(got), want)
		}
	}
	// The search took the journal in.
	if _, err := os.Stat(journaled.store().LogPath()); !os.IsNotExist(err) {
		t.Errorf("the journal is still there after a search: %v", err)
	}
	if st := journaled.Stats(); st.Documents != 7 {
		t.Errorf("Stats after the search: %d documents, want 7", st.Documents)
	}
	// A journal left behind after it was taken in (ws killed between the
	// rename of the index file and the removal) extends the old index
	// file: it is ignored, not taken in twice.
	must(t, os.WriteFile(journaled.store().LogPath(), journal, 0o600))
	if st := journaled.Stats(); st.Documents != 7 {
		t.Errorf("Stats with a stale journal: %d documents, want 7", st.Documents)
	}
	if got := ids(t, journaled, "tie"); got != "[n/5 n/4]" {
		t.Errorf("search with a stale journal: %s, want [n/5 n/4]", got)
	}
}

// TestJournalCrash checks that a record cut short (ws killed while it
// appended) loses only that record: the documents before it stay, and the
// next Add writes over it.
func TestJournalCrash(t *testing.T) {
	_, fs := testRoot(t, "docs/a.md")
	ctx := context.Background()
	e := testEngine(t, fs, "docs")
	for _, id := range []string{"n/1", "n/2"} {
		_, err := e.Add(ctx, search.Doc{ID: id, Content: "zebra " + id, Source: -1})
		must(t, err)
	}
	log := e.store().LogPath()
	data, err := os.ReadFile(log)
	must(t, err)
	// Half a record more: the kill came while it was written.
	must(t, os.WriteFile(log, append(data, data[len(data)-20:len(data)-5]...), 0o600))
	if st := e.Stats(); st.Documents != 3 {
		t.Errorf("with a torn record: %d documents, want 3", st.Documents)
	}
	n, err := e.Add(ctx, search.Doc{ID: "n/3", Content: "zebra n/3", Source: -1})
	must(t, err)
	if n != 4 {
		t.Errorf("Add after a torn record: %d documents, want 4", n)
	}
	if got := ids(t, e, "zebra"); got != "[n/1 n/2 n/3]" {
		t.Errorf("search: %s, want [n/1 n/2 n/3]", got)
	}
}

// hitsText is hits as text, line ranges and metadata included.
func hitsText(hits []search.Hit) string {
	var b bytes.Buffer
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %q %v %s", h.ID, h.Content, h.Score, h.Meta)
		if h.Range != nil {
			fmt.Fprintf(&b, " %v", *h.Range)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
