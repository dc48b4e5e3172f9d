package procstate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The strings of specs and records come back byte for byte, UTF-8 or not.
func TestJSONKeepsBytes(t *testing.T) {
	bad := "caf\xe9"
	spec := Spec{Argv: []string{"/bin/sh", "-c", "printf " + bad}, Env: []string{"X=" + bad, "PATH=/bin"},
		Dir: "/w/d\xfe", Command: "printf " + bad, Root: "/w", Thread: "t\xff", TimeoutMs: 0.4,
		Callbacks: &Callbacks{OnExit: []string{"cb"}, Dir: "/w/d\xfe", Env: []string{"Y=" + bad}}}
	rec := Record{ID: "1-2", PID: 1, Command: "printf " + bad, Cwd: "/w/d\xfe", Root: "/w", Thread: "t\xff"}
	for _, c := range []struct{ in, out any }{{spec, &Spec{}}, {rec, &Record{}}} {
		data, err := json.Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `\ufffd`) || !strings.Contains(string(data), `"bytes"`) {
			t.Errorf("%T: %s", c.in, data)
		}
		if err := json.Unmarshal(data, c.out); err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(c.out).Elem().Interface(); !reflect.DeepEqual(got, c.in) {
			t.Errorf("%T: read back %+v, want %+v", c.in, got, c.in)
		}
	}
	// Records written before, with plain strings, still read.
	var old Record
	if err := json.Unmarshal([]byte(`{"id":"1-2","pid":7,"command":"ls","cwd":"/w","root":"/w","timeout_ms":5000}`), &old); err != nil ||
		old.PID != 7 || old.Command != "ls" || old.Cwd != "/w" || old.TimeoutMs != 5000 {
		t.Errorf("plain record: %+v %v", old, err)
	}
}

// A timeout in milliseconds becomes a Duration to the nanosecond, and a
// positive one is never none.
func TestMsDuration(t *testing.T) {
	for _, tt := range []struct {
		ms   float64
		want time.Duration
	}{{0, 0}, {-1, 0}, {0.4, 400 * time.Microsecond}, {1e-9, time.Nanosecond}, {300, 300 * time.Millisecond}, {0.0000015, 2}} {
		if got := MsDuration(tt.ms); got != tt.want {
			t.Errorf("MsDuration(%v) = %v, want %v", tt.ms, got, tt.want)
		}
	}
	if got := Ms(400 * time.Microsecond); got != 0.4 {
		t.Errorf("Ms(400µs) = %v", got)
	}
}
