package workspace

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
)

// TestIndexName holds the default vector index name to Mastra's rule,
// spelled here as the regexp replacement it is: every character of the
// id and "_search" that is not a letter, a digit or '_' becomes one '_'
// (one for a multi-byte character, one for each invalid byte), "ws_" goes
// before a leading digit, and the name is cut at 63 bytes.
func TestIndexName(t *testing.T) {
	notIdent := regexp.MustCompile(`[^a-zA-Z0-9_]`)
	for _, id := range []string{"abc", "my-ws.1", "9lives", "ünï cödé", "a\xffb\xc3", "x/y:z", strings.Repeat("long-", 20), "_"} {
		w := &Workspace{cfg: &config.Config{ID: id}}
		want := notIdent.ReplaceAllString(id+"_search", "_")
		if want[0] >= '0' && want[0] <= '9' {
			want = "ws_" + want
		}
		want = want[:min(len(want), 63)]
		if got := w.IndexName(); got != want {
			t.Errorf("IndexName of id %q = %q, want %q", id, got, want)
		}
	}
	w := &Workspace{cfg: &config.Config{ID: "x", SearchIndexName: "mine"}}
	if got := w.IndexName(); got != "mine" {
		t.Errorf("IndexName with searchIndexName = %q, want mine", got)
	}
}
