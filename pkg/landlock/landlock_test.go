package landlock

import (
	"reflect"
	"testing"
)

func TestArgsRoundTrip(t *testing.T) {
	for _, p := range []Policy{{}, {ReadWrite: []string{"/w", "/tmp", "/dir with --rw in it"}, DenyNetwork: true}, {DenyNetwork: true}} {
		argv := []string{"/bin/sh", "-c", "echo --rw x --"}
		got, cmd, err := ParseArgs(append(p.Args(), argv...))
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if !reflect.DeepEqual(got, p) || !reflect.DeepEqual(cmd, argv) {
			t.Errorf("%+v came back as %+v, command %q", p, got, cmd)
		}
	}
	for _, bad := range [][]string{nil, {"--rw"}, {"--rw", "/w"}, {"--"}, {"--bogus", "--", "sh"}} {
		if _, _, err := ParseArgs(bad); err == nil {
			t.Errorf("ParseArgs(%q) accepted", bad)
		}
	}
}
