package needtool

import "testing"

func TestPath(t *testing.T) {
	if p := Path(t, "sh", "WS_REQUIRE_SH"); p == "" {
		t.Fatal("sh has no path")
	}
	t.Run("missing", func(t *testing.T) {
		t.Setenv("WS_REQUIRE_NOPE", "")
		Path(t, "no-such-program-here", "WS_REQUIRE_NOPE")
		t.Fatal("not skipped")
	})
}
