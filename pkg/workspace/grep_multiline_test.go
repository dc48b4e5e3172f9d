package workspace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/internal/needtool"
)

// TestGrepMultilineEventsAsRipgrep holds ws grep -U --jsonl to rg -U
// --json on random files and patterns of a small alphabet where the two
// dialects agree, with context: the begin, match and context messages must
// be the same bytes (a run of lines that matches cover is one message,
// each match a submatch; a pattern that cannot match a line end gets a
// message a line, as rg searches it line by line). The end and summary
// messages differ by design (elapsed times; rg's bytes_printed counts its
// JSON). Without -w: rg 13 borders a -w match its own way (it finds
// "foo" three times in "foo foo,foo" but " " once in "  b" for [^a]); ws
// lists every whole-word match (grep_multiline.txtar). The alphabet has no ^ or $, which ripgrep 13 reads as a line's
// start or end where a search resumed after a match (see pkg/grep's
// TestMultilineAgainstRipgrep); grep_multiline.txtar has runs a line
// anchor makes. It needs rg; WS_REQUIRE_RG=1 fails rather than skips
// without it.
func TestGrepMultilineEventsAsRipgrep(t *testing.T) {
	rg := needtool.Path(t, "rg", "WS_REQUIRE_RG")
	w, root := newTestWorkspace(t, nil)
	rng := rand.New(rand.NewSource(5))
	for i := range 12 {
		var sb strings.Builder
		for range rng.Intn(80) {
			sb.WriteByte("ab \n\n"[rng.Intn(5)])
		}
		must(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(sb.String()), 0o644))
	}
	atoms := []string{"a", "b", " ", `\n`, "[^a]", ".", `\s`, "a+", "(?:b|a)", "a*"}
	for range 100 {
		var p strings.Builder
		for range 1 + rng.Intn(4) {
			p.WriteString(atoms[rng.Intn(len(atoms))])
		}
		pattern := p.String()
		before, after := rng.Intn(3), rng.Intn(3)
		multi := rng.Intn(3) > 0 // and without -U, a line at a time
		for i := range 12 {
			name := fmt.Sprintf("f%02d.txt", i)
			var got bytes.Buffer
			_, err := w.Grep(context.Background(), GrepRequest{Pattern: pattern, Path: name, Multiline: &multi, Before: &before, After: &after,
				Events: func(ev grep.Event) {
					if ev.Type != "end" && ev.Type != "summary" {
						got.Write(append(ev.AppendJSON(nil), '\n'))
					}
				}})
			must(t, err)
			if !multi && strings.Contains(pattern, `\n`) {
				// rg refuses it without -U; ws finds nothing.
				if got.Len() != 0 {
					t.Fatalf("pattern %q on %s without -U sent %s", pattern, name, got.String())
				}
				continue
			}
			args := []string{"--json", "--no-config", "-B", fmt.Sprint(before), "-A", fmt.Sprint(after), "-e", pattern, name}
			if multi {
				args = append(args, "-U")
			}
			cmd := exec.Command(rg, args...)
			cmd.Dir = root
			out, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
				t.Fatalf("rg %q: %v: %s", args, err, ee.Stderr)
			}
			var want bytes.Buffer
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if l := sc.Text(); strings.HasPrefix(l, `{"type":"begin"`) || strings.HasPrefix(l, `{"type":"match"`) || strings.HasPrefix(l, `{"type":"context"`) {
					want.WriteString(l + "\n")
				}
			}
			if got.String() != want.String() {
				t.Fatalf("pattern %q on %s (-U %v -B %d -A %d):\nws: %s\nrg: %s", pattern, name, multi, before, after, got.String(), want.String())
			}
		}
	}
}
