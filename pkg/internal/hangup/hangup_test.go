package hangup

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Wait tells a reader that went away (true) from a watch that was woken
// (false).
func TestWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(r, wakeW *os.File)
		want bool
	}{
		{"the reader closed its end", func(r, _ *os.File) { r.Close() }, true},
		{"woken", func(_, wakeW *os.File) { wakeW.Close() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			wakeR, wakeW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer wakeR.Close()
			defer wakeW.Close()
			fd, err := Dup(w)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			got := make(chan bool, 1)
			go func() { got <- Wait(fd, int(wakeR.Fd())) }()
			tc.end(r, wakeW)
			if g := <-got; g != tc.want {
				t.Fatalf("Wait = %v, want %v", g, tc.want)
			}
		})
	}
}
