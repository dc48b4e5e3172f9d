package workspace

import (
	"strings"
	"testing"
)

// An approval question shows every argument: a long content is cut to its
// start and size, so the path after it is still seen; what a terminal
// would act on or hide is escaped.
func TestApprovalSummary(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct{ args, want string }{
		{`{"content":"x","path":"a.txt"}`, `write_file {"content":"x","path":"a.txt"}`},
		{`{"content":"` + long + `","path":"secret/keys.txt"}`,
			`write_file {"content":"` + strings.Repeat("x", 60) + `…" (5000 bytes),"path":"secret/keys.txt"}`},
		{`{"new_string":"é` + long + `","old_string":"a","path":"p"}`,
			`write_file {"new_string":"é` + strings.Repeat("x", 58) + `…" (5002 bytes),"old_string":"a","path":"p"}`},
		{`{"command":"echo \u001b[2K","n":3,"ok":true,"list":[1,2]}`, `write_file {"command":"echo \u001b[2K","n":3,"ok":true,"list":[1,2]}`},
		{`{"path":"a‮txt.exe","x":"<&>"}`, `write_file {"path":"a\u202etxt.exe","x":"<&>"}`},
		{`{"path":"a` + "\u0085" + `"}`, `write_file {"path":"a\u0085"}`},
		{`[1]`, `write_file [1]`},
	}
	for _, tt := range tests {
		if got := approvalSummary("write_file", []byte(tt.args)); got != tt.want {
			t.Errorf("approvalSummary(%.60s):\n got %s\nwant %s", tt.args, got, tt.want)
		}
	}
	if got := approvalSummary("t", []byte(`{"a":"`+long+`","b":"`+long+`","c":"`+long+`","d":"`+long+`","e":"`+long+`","f":"`+long+`","g":"`+long+`"}`)); len(got) > maxSummary+len("…") {
		t.Errorf("summary of %d bytes", len(got))
	}
}
