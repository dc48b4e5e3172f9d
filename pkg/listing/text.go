package listing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/tokens"
)

// lines is the tree's lines, in one buffer.
type lines struct {
	buf  []byte
	ends []int // end offset of each line
}

func (t *lines) line(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1] + 1
	}
	return t.buf[start:t.ends[i]]
}

// write counts the tree and makes its text: the entries within the
// budget, the summary, the hint about a .git directory left out, and
// the directories that could not be read.
func (l *Listing) write(o Options, depth int, gitDir string) string {
	var t lines
	l.flatten(l.root, 0, &t)
	summary := fmt.Sprintf("%d %s, %d %s", l.Directories, wording.Plural(l.Directories, "directory", "directories"),
		l.Files, wording.Plural(l.Files, "file", "files"))
	if l.Truncated {
		summary += " (truncated at depth " + js.FormatNumber(o.MaxDepth) + ")"
	}
	text := l.capped(&t, summary, o, depth)
	if gitDir != "" && o.Hidden {
		// Hidden names were asked for, and .git alone was left out.
		how := fmt.Sprintf("set path to %q", gitDir)
		if o.Flags {
			how = "ws ls " + wording.ShellWord(gitDir)
		}
		text += "\nhint: " + gitDir + " is not listed; .git directories are listed only when named (" + how + ")"
	}
	if len(l.Skipped) > 0 {
		// Shown without its entries: say why, as grep names what it skips.
		var parts []string
		for i, s := range l.Skipped {
			if i == 5 {
				parts = append(parts, fmt.Sprintf("and %d more", len(l.Skipped)-5))
				break
			}
			// A path nested to PATH_MAX is tens of kilobytes: its
			// start and end say which it is (--json has it whole).
			parts = append(parts, wording.Middle(wording.Name(s.Path), 160)+": "+s.Reason)
		}
		text += "\nskipped: " + strings.Join(parts, "; ")
	}
	return text
}

// flatten writes the tree depth-first and counts what it shows.
func (l *Listing) flatten(n *node, depth int, t *lines) {
	if n.hidden {
		l.Truncated = true
	}
	for _, c := range n.children {
		if len(t.ends) > 0 {
			t.buf = append(t.buf, '\n')
		}
		for range depth {
			t.buf = append(t.buf, '\t')
		}
		t.buf = append(t.buf, wording.Name(c.Name)...)
		if c.IsDir {
			l.Directories++
		} else {
			l.Files++
		}
		if c.IsLink && c.Target != "" {
			t.buf = append(t.buf, " -> "...)
			t.buf = append(t.buf, wording.Name(c.Target)...)
		}
		if c.stat {
			size := "-"
			if !c.IsDir {
				size = strconv.FormatInt(c.size, 10)
			}
			t.buf = append(t.buf, "  "+size+"  "+c.modified()...)
		}
		t.ends = append(t.ends, len(t.buf))
		l.flatten(c, depth+1, t)
	}
}

// capped joins the tree within the token budget. Output that fits is
// Mastra's text; otherwise the whole lines that fit the budget are kept,
// and the notice says how many entries were shown and how to narrow the
// listing, before the summary.
func (l *Listing) capped(t *lines, summary string, o Options, depth int) string {
	full := ".\n\n" + summary
	if len(t.ends) > 0 {
		full = ".\n" + string(t.buf) + "\n\n" + summary
	}
	if !tokens.Exceeds(full, o.Budget) {
		return full
	}
	// Only the content is charged, as Mastra's cut charges it: the "."
	// line and the entries; the notice and the summary come on top.
	used := tokens.Estimate(".")
	total, shown := len(t.ends), 0
	for shown < total {
		n := tokens.Estimate(string(t.line(shown)))
		if used+n > o.Budget {
			break
		}
		used += n
		shown++
	}
	if shown == total {
		// Every entry fits; only the summary went over: nothing is cut.
		return full
	}
	l.OutputCut = true
	var sb strings.Builder
	sb.WriteString(".\n")
	if shown > 0 {
		sb.Write(t.buf[:t.ends[shown-1]])
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "[output truncated: showing %d of %d entries; %s]\n\n%s", shown, total, l.narrowHint(o, depth), summary)
	return sb.String()
}

// narrowHint says how to narrow a listing that was cut, naming the
// biggest top-level directory as an example path.
func (l *Listing) narrowHint(o Options, depth int) string {
	big := biggestDir(l.root)
	switch {
	case o.Flags:
		hint := "narrow it with a path"
		if big != "" {
			hint += fmt.Sprintf(" (e.g. ws ls %s --max-depth %d)", wording.ShellWord(fsroot.JoinRel(o.Name, big)), max(depth, 1))
		}
		return hint + ", a lower --max-depth, --pattern, --extension or --exclude"
	case big != "":
		return fmt.Sprintf("narrow it with path (e.g. path=%q), a lower maxDepth, pattern, extension or exclude", fsroot.JoinRel(o.Name, big))
	default:
		return "narrow it with path, a lower maxDepth, pattern, extension or exclude"
	}
}

// biggestDir names the top-level directory with the most entries below it.
func biggestDir(root *node) string {
	best, bestN := "", 0
	for _, c := range root.children {
		if n := countNodes(c); c.IsDir && n > bestN {
			best, bestN = c.Name, n
		}
	}
	return best
}

func countNodes(n *node) int {
	total := len(n.children)
	for _, c := range n.children {
		total += countNodes(c)
	}
	return total
}
