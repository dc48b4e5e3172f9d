package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type wsOnlyReq struct {
	Path  string `json:"path"`
	Extra *bool  `json:"extra,omitempty" ws:"only"`
	Limit *int   `json:"limit,omitempty"`
}

// TestMastra: a parameter tagged ws:"only" is left out of Mastra's list,
// so its schema does not show it and its validation refuses it as an
// unknown key; the full list keeps it.
func TestMastra(t *testing.T) {
	all := For[wsOnlyReq]()
	mastra := all.Mastra()
	if got := mastra.Names(); !slices.Equal(got, []string{"path", "limit"}) {
		t.Errorf("Mastra's names: %v", got)
	}
	if got := all.Names(); !slices.Equal(got, []string{"path", "extra", "limit"}) {
		t.Errorf("all names: %v", got)
	}
	b, err := json.Marshal(mastra.JSON())
	if err != nil || strings.Contains(string(b), "extra") {
		t.Errorf("Mastra's schema: %s %v", b, err)
	}
	args := []byte(`{"path":"a","extra":true}`)
	if _, err := mastra.Validate("t", args); err == nil || !strings.Contains(err.Error(), `- root: Unrecognized key: "extra"`) {
		t.Errorf("Mastra's list took a ws-only parameter: %v", err)
	}
	if clean, err := all.Validate("t", args); err != nil || string(clean) != `{"extra":true,"path":"a"}` {
		t.Errorf("the full list: %s %v", clean, err)
	}
}

type htmlReq struct {
	Pattern string `json:"pattern" desc:"a <regex> & more"`
}

// TestSchemaKeepsHTMLCharacters: a description's <, > and & are written
// as they are, not as json.Marshal's \u003c escapes.
func TestSchemaKeepsHTMLCharacters(t *testing.T) {
	b, err := For[htmlReq]().JSON().MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"description":"a <regex> & more"`) {
		t.Errorf("schema: %s %v", b, err)
	}
}
