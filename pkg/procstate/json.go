package procstate

import (
	"encoding/json"

	"github.com/wstools/ws/pkg/statefile"
)

// The strings of a spec or a record that come from the user or the host
// (the command line, its arguments and environment, directories, the
// thread) keep their bytes in JSON: statefile.String writes one that is
// not UTF-8 as {"bytes": base64}, where a plain string field would turn
// its bad bytes into U+FFFD and the supervisor would run another command,
// in another directory, than the one asked. Each type is encoded as
// itself with those fields put over the plain ones of the same name.

type (
	plainSpec      Spec
	plainRecord    Record
	plainCallbacks Callbacks
)

type specJSON struct {
	plainSpec
	Argv    []statefile.String `json:"argv"`
	Env     []statefile.String `json:"env"`
	Dir     statefile.String   `json:"dir"`
	Command statefile.String   `json:"command"`
	Root    statefile.String   `json:"root"`
	Thread  statefile.String   `json:"thread,omitempty"`
}

// MarshalJSON writes the spec with its strings' bytes kept.
func (s Spec) MarshalJSON() ([]byte, error) {
	return json.Marshal(specJSON{plainSpec(s), statefile.Strings(s.Argv), statefile.Strings(s.Env),
		statefile.String(s.Dir), statefile.String(s.Command), statefile.String(s.Root), statefile.String(s.Thread)})
}

// UnmarshalJSON reads what MarshalJSON wrote (and plain strings).
func (s *Spec) UnmarshalJSON(data []byte) error {
	var j specJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*s = Spec(j.plainSpec)
	s.Argv, s.Env = statefile.Plain(j.Argv), statefile.Plain(j.Env)
	s.Dir, s.Command, s.Root, s.Thread = string(j.Dir), string(j.Command), string(j.Root), string(j.Thread)
	return nil
}

type recordJSON struct {
	plainRecord
	Command statefile.String `json:"command"`
	Cwd     statefile.String `json:"cwd"`
	Root    statefile.String `json:"root"`
	Thread  statefile.String `json:"thread,omitempty"`
}

// MarshalJSON writes the record with its strings' bytes kept.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{plainRecord(r), statefile.String(r.Command), statefile.String(r.Cwd),
		statefile.String(r.Root), statefile.String(r.Thread)})
}

// UnmarshalJSON reads what MarshalJSON wrote (and plain strings).
func (r *Record) UnmarshalJSON(data []byte) error {
	var j recordJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = Record(j.plainRecord)
	r.Command, r.Cwd, r.Root, r.Thread = string(j.Command), string(j.Cwd), string(j.Root), string(j.Thread)
	return nil
}

type callbacksJSON struct {
	plainCallbacks
	Dir statefile.String   `json:"dir"`
	Env []statefile.String `json:"env"`
}

// MarshalJSON writes the callbacks with their directory's and
// environment's bytes kept.
func (c Callbacks) MarshalJSON() ([]byte, error) {
	return json.Marshal(callbacksJSON{plainCallbacks(c), statefile.String(c.Dir), statefile.Strings(c.Env)})
}

// UnmarshalJSON reads what MarshalJSON wrote (and plain strings).
func (c *Callbacks) UnmarshalJSON(data []byte) error {
	var j callbacksJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*c = Callbacks(j.plainCallbacks)
	c.Dir, c.Env = string(j.Dir), statefile.Plain(j.Env)
	return nil
}
