package patch

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/wstools/ws/pkg/internal/wording"
)

// Op is what a file section of a patch does to its file.
type Op int

// The three operations a file section can have.
const (
	// Add creates a file that must not exist yet.
	Add Op = iota + 1
	// Delete removes a file that must exist.
	Delete
	// Update changes a file that must exist, and may rename it.
	Update
)

// String returns "add", "delete" or "update".
func (o Op) String() string {
	switch o {
	case Add:
		return "add"
	case Delete:
		return "delete"
	case Update:
		return "update"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// MarshalText makes an Op appear in JSON as its String.
func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// The values of Patch.Format.
const (
	// FormatCodex is Codex's apply_patch envelope (*** Begin Patch ...).
	FormatCodex = "codex"
	// FormatUnified is a unified diff, as git diff and diff -u print it.
	FormatUnified = "unified"
)

// Patch is a parsed patch: one section per file, in the order of the text.
type Patch struct {
	Files []FilePatch
	// Format is FormatCodex or FormatUnified.
	Format string
}

// Exec is what a patch does to a file's executable bit: a git diff says
// it with "new file mode 100755", or "old mode" and "new mode" lines.
type Exec int8

// The values of Exec.
const (
	// ExecKeep: the patch says nothing of the mode (a Codex patch, or a
	// diff without mode lines), or gives a new file the usual 100644.
	ExecKeep Exec = iota
	// ExecSet makes the file executable (mode 100755).
	ExecSet
	// ExecClear makes it not executable (a new mode 100644).
	ExecClear
)

// FilePatch is what a patch does to one file.
type FilePatch struct {
	Op Op
	// Path is the file's path as the patch names it: relative and
	// slash-separated, cleaned ("./a//b" becomes "a/b"), never absolute and
	// never with a ".." component. The caller resolves it.
	Path string
	// MoveTo is the new path of a renamed file (Update only), "" otherwise.
	MoveTo string
	// Hunks are the changes of an Update, in file order. A Delete taken from
	// a unified diff keeps its hunks too, so that Plan can check that the
	// file still holds what the diff removes.
	Hunks []Hunk
	// Content is the whole content of an Add.
	Content []byte
	// Exec is what the patch does to the file's executable bit (Add and
	// Update; an Update may change only that).
	Exec Exec
	// PatchLine is the 1-based line of the section's header in the patch.
	PatchLine int
}

// LineKind says what a hunk does with one line.
type LineKind byte

// The kinds of hunk lines, with the prefix character that marks them.
const (
	// Context is a line that stays (prefix ' ').
	Context LineKind = ' '
	// Remove is a line that goes away (prefix '-').
	Remove LineKind = '-'
	// Insert is a line that is added (prefix '+').
	Insert LineKind = '+'
)

// Line is one line of a hunk.
type Line struct {
	Kind LineKind
	// Text is the line without its prefix and without its "\n". A "\r" at the
	// end is kept only when a unified diff has it on some lines and not on
	// all of them (a diff of a CRLF file, or of a change to line endings);
	// Plan ignores it when it matches, and follows it on the lines it adds.
	Text string
}

// Newline says what a hunk does to the final newline of its file.
type Newline int

// The effects a hunk can have on the final newline.
const (
	// KeepNewline leaves the file's final newline (or its absence) as it is.
	KeepNewline Newline = iota
	// AddNewline makes the file end with a line ending.
	AddNewline
	// DropNewline makes the file end without one.
	DropNewline
)

// Hunk is one change to a file: the lines it expects and what they become.
type Hunk struct {
	// Anchors are the texts of Codex "@@ text" lines, in order. Plan finds
	// each one after the previous, and the hunk's lines after the last.
	Anchors []string
	Lines   []Line
	// EndOfFile means the hunk's old lines must be the last lines of the
	// file: Codex's "*** End of File", or a "\ No newline at end of file"
	// marker in a unified diff.
	EndOfFile bool
	// Newline is the hunk's effect on the final newline.
	Newline Newline
	// HasRange is true for a unified hunk whose header has line numbers;
	// then OldStart, OldCount, NewStart and NewCount are as written.
	HasRange bool
	OldStart int
	OldCount int
	NewStart int
	NewCount int
	// PatchLine is the 1-based line of the hunk's first line in the patch.
	PatchLine int
}

// Old returns the lines the hunk expects to find (context and removed).
func (h *Hunk) Old() []string { return h.side(Insert) }

// New returns the lines the hunk leaves in their place (context and added).
func (h *Hunk) New() []string { return h.side(Remove) }

func (h *Hunk) side(skip LineKind) []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != skip {
			out = append(out, l.Text)
		}
	}
	return out
}

// changes reports whether the hunk adds or removes at least one line.
func (h *Hunk) changes() bool {
	for _, l := range h.Lines {
		if l.Kind != Context {
			return true
		}
	}
	return false
}

// Parse reads a Codex envelope or a unified diff, telling them apart by
// their first lines. It accepts the text wrapped in a Markdown code fence or
// a shell heredoc (<<'EOF' ... EOF), and a patch whose lines all end in
// "\r\n", and drops a byte-order mark before the text (Windows editors and
// PowerShell's Out-File write one). It checks the syntax and the paths but
// reads no file.
func Parse(text string) (*Patch, error) {
	lines := splitLines(strings.TrimPrefix(text, bom))
	start, end := unwrap(lines)
	body := lines[start:end]
	first := firstNonBlank(body, 0)
	if first == len(body) {
		return nil, &ParseError{Kind: KindEmpty, Msg: "the patch is empty"}
	}
	t := strings.TrimSpace(body[first])
	var p *Patch
	var err error
	switch {
	case t == beginMarker || codexHeader(t) != 0:
		p, err = parseCodex(body, start)
	case looksUnified(body):
		p, err = parseUnified(body, start)
	default:
		return nil, &ParseError{Kind: KindSyntax, Line: start + first + 1, Msg: fmt.Sprintf(
			"not a patch: expected %q (Codex format) or a unified diff (\"--- a/PATH\", \"+++ b/PATH\", \"@@ -1,2 +1,2 @@\"), got %q",
			beginMarker, clip(body[first]))}
	}
	if err != nil {
		return nil, err
	}
	if len(p.Files) == 0 {
		return nil, &ParseError{Kind: KindEmpty, Msg: "the patch changes no file"}
	}
	return p, nil
}

// splitLines cuts text at "\n". When every line ends in "\r\n", the "\r"s
// belong to the transport, not to the lines, and are dropped.
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	terminated := len(lines)
	if !strings.HasSuffix(text, "\n") {
		terminated--
	}
	if terminated <= 0 {
		return lines
	}
	for _, l := range lines[:terminated] {
		if !strings.HasSuffix(l, "\r") {
			return lines
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

var heredocOpener = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(?:'(\w+)'|"(\w+)"|(\w+))$`)
})

// unwrap returns the bounds of the patch inside a Markdown code fence or a
// heredoc (in either order), or of the whole text when there is neither.
func unwrap(lines []string) (start, end int) {
	start, end = 0, len(lines)
	for range 2 {
		s := firstNonBlank(lines[:end], start)
		e := end
		for e > s && strings.TrimSpace(lines[e-1]) == "" {
			e--
		}
		if s >= e {
			break
		}
		first := strings.TrimSpace(lines[s])
		var closer string
		if strings.HasPrefix(first, "```") {
			closer = "```"
		} else if m := heredocOpener().FindStringSubmatch(first); m != nil {
			closer = m[1] + m[2] + m[3]
		} else {
			break
		}
		start, end = s+1, e
		if e-1 > s && strings.TrimSpace(lines[e-1]) == closer {
			end = e - 1
		}
	}
	return start, end
}

func firstNonBlank(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

func looksUnified(lines []string) bool {
	for i, l := range lines {
		if strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@ -") ||
			strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			return true
		}
	}
	return false
}

// cleanPath checks a path named by the patch and returns its clean form.
func cleanPath(p string, line int) (string, error) {
	bad := func(why string) error {
		return &ParseError{Kind: KindBadPath, Line: line, Msg: fmt.Sprintf("path %q %s", p, why)}
	}
	switch {
	case p == "":
		return "", &ParseError{Kind: KindBadPath, Line: line, Msg: "missing path"}
	case strings.ContainsRune(p, 0):
		return "", bad("contains a NUL byte")
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || len(p) >= 2 && p[1] == ':' && isLetter(p[0]):
		return "", bad("is absolute; paths in a patch must be relative")
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", bad(`has a ".." component; paths in a patch must stay inside the workspace`)
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", bad("names no file")
	}
	return c, nil
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// clip shortens a line quoted in an error message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	part, _, _ := wording.Cut(s, 0, max)
	return part + "..."
}
