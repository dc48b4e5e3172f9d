package workspace

import "testing"

func TestDialectSetting(t *testing.T) {
	for _, tc := range []struct {
		d     Dialect
		value any
		want  string
	}{
		{JSONParams, 262, "offset=262"},
		{CLIFlags, 262, "--offset 262"},
		{JSONParams, false, "offset=false"},
		{CLIFlags, false, "--offset=false"}, // a bool flag takes no separate value
	} {
		if got := tc.d.setting("offset", "offset", tc.value); got != tc.want {
			t.Errorf("setting(%v) in dialect %v = %q, want %q", tc.value, tc.d, got, tc.want)
		}
	}
}
