package skills

import (
	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// Name is a path or a file name in --json data: a JSON string when it is
// valid UTF-8, else {"bytes": "<base64>"}, so a name that is not UTF-8
// reaches a script as its bytes instead of with U+FFFD in it.
type Name string

// MarshalJSON writes a string, or the base64 object.
func (n Name) MarshalJSON() ([]byte, error) { return jsonenc.Bytes([]byte(n)) }

// names converts a list of names for --json data.
func names(list []string) []Name {
	out := make([]Name, len(list))
	for i, s := range list {
		out[i] = Name(s)
	}
	return out
}

// MarshalJSON writes the skill with its path and its files' names as
// Names (the other fields are text that the front matter or discovery
// made valid UTF-8).
func (s Skill) MarshalJSON() ([]byte, error) {
	return jsonenc.Marshal(struct {
		Name          string         `json:"name"`
		Description   string         `json:"description"`
		License       string         `json:"license,omitempty"`
		Compatibility any            `json:"compatibility,omitempty"`
		UserInvocable *bool          `json:"user-invocable,omitempty"`
		Metadata      map[string]any `json:"metadata,omitempty"`
		Path          Name           `json:"path"`
		Source        string         `json:"source"`
		Instructions  string         `json:"instructions"`
		References    []Name         `json:"references"`
		Scripts       []Name         `json:"scripts"`
		Assets        []Name         `json:"assets"`
	}{s.Name, s.Description, s.License, s.Compatibility, s.UserInvocable, s.Metadata,
		Name(s.Path), s.Source, s.Instructions, names(s.References), names(s.Scripts), names(s.Assets)})
}
