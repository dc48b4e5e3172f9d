package workspace

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
)

// TestCallBoundedInput: hostile JSON arguments (nested 200 000 levels, or
// over the size limit) are a validation error within milliseconds, with a
// short echo, through the call path that `ws call` and `ws mcp` share.
func TestCallBoundedInput(t *testing.T) {
	w, _ := newTestWorkspace(t, nil, "a.txt")
	inputs := map[string]string{
		"deep":     `{"path":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`,
		"unclosed": `{"path":` + strings.Repeat("[{\"a\":", 100000),
		"big":      `{"path":"a.txt","content":"` + strings.Repeat("x", 64<<20) + `"}`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, _, err := w.Call(context.Background(), WriteFile, []byte(in))
			d := time.Since(start)
			if errs.CodeOf(err) != errs.InvalidArgument {
				t.Fatalf("error %v, want a validation error", err)
			}
			if !strings.HasPrefix(err.Error(), "Tool input validation failed for "+WriteFile) {
				t.Errorf("message: %.200q", err.Error())
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the message takes %d bytes", len(err.Error()))
			}
			if d > 2*time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
}
