package procstate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// The strings of specs, records and callbacks come back byte for byte,
// UTF-8 or not: a plain JSON string when they are UTF-8, {"bytes": base64}
// when not.
func TestJSONKeepsBytes(t *testing.T) {
	bad := "caf\xe9"
	spec := Spec{Argv: []statefile.String{"/bin/sh", "-c", statefile.String("printf " + bad)},
		Env: []statefile.String{statefile.String("X=" + bad), "PATH=/bin"},
		Dir: "/w/d\xfe", Command: statefile.String("printf " + bad), Root: "/w", Thread: "t\xff", TimeoutMs: 0.4,
		Callbacks: &Callbacks{OnExit: []string{"cb"}, Dir: "/w/d\xfe", Env: []statefile.String{statefile.String("Y=" + bad)}}}
	rec := Record{ID: "1-2", PID: 1, Command: statefile.String("printf " + bad), Cwd: "/w/d\xfe", Root: "/w", Thread: "t\xff"}
	for _, c := range []struct{ in, out any }{{spec, &Spec{}}, {rec, &Record{}}} {
		data, err := json.Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `\ufffd`) || !strings.Contains(string(data), `"dir":{"bytes":"L3cvZP4="}`) &&
			!strings.Contains(string(data), `"cwd":{"bytes":"L3cvZP4="}`) || !strings.Contains(string(data), `"root":"/w"`) {
			t.Errorf("%T: %s", c.in, data)
		}
		if err := json.Unmarshal(data, c.out); err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(c.out).Elem().Interface(); !reflect.DeepEqual(got, c.in) {
			t.Errorf("%T: read back %+v, want %+v", c.in, got, c.in)
		}
	}
	// What older ws wrote still reads: plain strings (and whole ms).
	var old Record
	if err := json.Unmarshal([]byte(`{"id":"1-2","pid":7,"command":"ls","cwd":"/w","root":"/w","thread":"t","timeout_ms":5000}`), &old); err != nil ||
		old.PID != 7 || old.Command != "ls" || old.Cwd != "/w" || old.Root != "/w" || old.Thread != "t" || old.TimeoutMs != 5000 {
		t.Errorf("plain record: %+v %v", old, err)
	}
	var oldSpec Spec
	if err := json.Unmarshal([]byte(`{"argv":["/bin/sh","-c","ls"],"env":["PATH=/bin"],"dir":"/w","command":"ls","root":"/w","timeout_ms":300,
		"callbacks":{"on_exit":["cb"],"dir":"/w","env":["A=b"]}}`), &oldSpec); err != nil ||
		!reflect.DeepEqual(statefile.Plain(oldSpec.Argv), []string{"/bin/sh", "-c", "ls"}) || oldSpec.Dir != "/w" ||
		oldSpec.Callbacks == nil || oldSpec.Callbacks.Dir != "/w" || !reflect.DeepEqual(statefile.Plain(oldSpec.Callbacks.Env), []string{"A=b"}) {
		t.Errorf("plain spec: %+v %v", oldSpec, err)
	}
	// An empty thread is left out, as before.
	if data, _ := json.Marshal(Record{ID: "1-2"}); strings.Contains(string(data), "thread") {
		t.Errorf("empty thread written: %s", data)
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
