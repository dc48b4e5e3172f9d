package patch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/internal/wording"
)

// Kind names the cause of an error from Parse or Plan. The values are
// stable: callers map them to their own error codes.
type Kind string

// The kinds of *ParseError.
const (
	// KindSyntax is text that is not a valid patch.
	KindSyntax Kind = "syntax"
	// KindBadPath is a path that is missing, absolute or has a ".." component.
	KindBadPath Kind = "bad_path"
	// KindUnsupported is a valid diff that this package does not apply:
	// binary diffs and copies.
	KindUnsupported Kind = "unsupported"
	// KindEmpty is a patch that changes no file.
	KindEmpty Kind = "empty"
)

// The kinds of *HunkError.
const (
	// KindNotFound is a hunk whose lines (or one of whose @@ lines) are not in
	// the file, at any leniency level, after the previous hunk.
	KindNotFound Kind = "not_found"
	// KindAmbiguous is a hunk that fits more than one place.
	KindAmbiguous Kind = "ambiguous"
	// KindOverlap is a hunk that would start before the end of the previous
	// one (a unified hunk placed by its line numbers only).
	KindOverlap Kind = "overlap"
)

// The kinds of *FileError.
const (
	// KindExists is an Add of a file that exists.
	KindExists Kind = "exists"
	// KindMissing is a Delete or Update of a file that does not exist.
	KindMissing Kind = "missing"
	// KindDuplicate is a path named by two file sections of one patch.
	KindDuplicate Kind = "duplicate"
	// KindMoveExists is a rename onto a file that exists.
	KindMoveExists Kind = "move_exists"
	// KindDeleteMismatch is a unified diff's deletion of a file that holds
	// more than the diff removes.
	KindDeleteMismatch Kind = "delete_mismatch"
	// KindRead is a failure of the read function given to Plan.
	KindRead Kind = "read"
)

// KindOf returns the Kind of the first *ParseError, *HunkError or
// *FileError in err's tree (searched depth first, as errors.As does), so the
// kind of the first failure when Plan joins several; "" when there is none.
func KindOf(err error) Kind {
	switch e := err.(type) {
	case *ParseError:
		return e.Kind
	case *HunkError:
		return e.Kind
	case *FileError:
		return e.Kind
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			if k := KindOf(x); k != "" {
				return k
			}
		}
	case interface{ Unwrap() error }:
		return KindOf(e.Unwrap())
	}
	return ""
}

// ParseError is text that Parse cannot read as a patch.
type ParseError struct {
	Kind Kind
	// Line is the 1-based line of the patch text at fault, 0 when the error
	// is about the whole text.
	Line int
	Msg  string
}

// Error returns "patch line N: MSG".
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
	}
	return "patch: " + e.Msg
}

// HunkError is a hunk that Plan cannot place: its lines are not in the file,
// or they fit more than one place.
type HunkError struct {
	Kind Kind
	Path string
	// Hunk is the 1-based index of the hunk among its file's hunks.
	Hunk int
	// PatchLine is the 1-based line of the hunk in the patch text.
	PatchLine int
	// Format is the patch's format; the advice in the message depends on it.
	Format string
	// Anchor is the @@ line that was not found; "" when the hunk's own lines
	// were not found, or for other kinds.
	Anchor string
	// Want are the lines the hunk looked for (its context and removed lines).
	Want []string
	// From is the 1-based line of the file where the search started (just
	// after the previous hunk, or after the anchor before).
	From int

	// Places is the number of places where an ambiguous hunk fits, Matches
	// the 1-based lines where the first of them (at most 10) start, Levels
	// the leniency level each of those needed (its old lines'), and Level
	// the loosest of them.
	Places  int
	Matches []int
	Levels  []Level
	Level   Level

	// For KindNotFound: Closest is the 1-based line where the region of the
	// file most like Want starts (0 when no line of Want is anywhere after
	// From); DiffLine is its first line that differs from Want; Expected is
	// what the patch has there and Found what the file has (FoundEOF when
	// the file ends before).
	Closest  int
	DiffLine int
	Expected string
	Found    string
	FoundEOF bool
	// Hint is a further explanation for KindNotFound, or "".
	Hint string

	// At is the 1-based line where a KindOverlap hunk would start.
	At int
}

// Error describes the failure in one line; a not-found hunk adds indented
// lines that show where the file differs from the patch.
func (e *HunkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: hunk %d", e.Path, e.Hunk)
	if e.PatchLine > 0 {
		fmt.Fprintf(&b, " (patch line %d)", e.PatchLine)
	}
	switch e.Kind {
	case KindAmbiguous:
		mixed := false
		for _, l := range e.Levels {
			mixed = mixed || l != e.Levels[0]
		}
		more := ""
		if n := e.Places - len(e.Matches); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		switch {
		case mixed:
			// Each place with what it needed ignored: none is exact (an
			// exact place would have been taken alone).
			var at []string
			for i, m := range e.Matches {
				at = append(at, fmt.Sprintf("line %d ignoring %s", m, e.Levels[i].Describe()))
			}
			fmt.Fprintf(&b, ": matches %d places, none exactly (%s%s)", e.Places, strings.Join(at, "; "), more)
		case more != "":
			fmt.Fprintf(&b, ": matches %d places (lines %s%s)", e.Places, strings.Join(intStrings(e.Matches), ", "), more)
		default:
			fmt.Fprintf(&b, ": matches %d places (lines %s)", e.Places, joinInts(e.Matches))
		}
		if !mixed && e.Level != LevelExact {
			fmt.Fprintf(&b, " when %s is ignored", e.Level.Describe())
		}
		b.WriteString("; add context lines")
		if e.Format == FormatCodex {
			b.WriteString(" or an @@ line naming the enclosing function or class")
		}
		b.WriteString(" so that it matches only one")
	case KindOverlap:
		fmt.Fprintf(&b, ": would start at line %d, before the end of the previous hunk (line %d); hunks must be in file order and must not overlap", e.At, e.From-1)
	default:
		if e.Anchor != "" {
			fmt.Fprintf(&b, ": its @@ line %q was not found", e.Anchor)
		} else {
			b.WriteString(": its lines were not found")
		}
		if e.From > 1 {
			fmt.Fprintf(&b, " at or after line %d", e.From)
		}
		if e.Closest > 0 {
			want, found := cutAtDifference(e.Expected, e.Found)
			fmt.Fprintf(&b, "\n  closest match starts at line %d; line %d differs:\n    patch: %s\n    file:  ", e.Closest, e.DiffLine, want)
			if e.FoundEOF {
				b.WriteString("(end of file)")
			} else {
				b.WriteString(found)
			}
		}
		if e.Hint != "" {
			b.WriteString("\n  " + e.Hint)
		}
	}
	return b.String()
}

// FileError is a file section that does not fit the files as they are.
type FileError struct {
	Kind Kind
	Op   Op
	Path string
	// MoveTo is the destination of a KindMoveExists rename.
	MoveTo string
	// Sections are the 1-based file sections that name Path (KindDuplicate).
	Sections []int
	// Err is the read function's error (KindRead).
	Err error
}

// Error describes the failure in one line.
func (e *FileError) Error() string {
	switch e.Kind {
	case KindExists:
		return fmt.Sprintf("add %s: the file already exists; update it instead, or delete it first", e.Path)
	case KindMissing:
		return fmt.Sprintf("%s %s: the file does not exist", e.Op, e.Path)
	case KindDuplicate:
		return fmt.Sprintf("%s: named by file sections %s of the patch; a path may appear in only one section, so merge them", e.Path, joinInts(e.Sections))
	case KindMoveExists:
		return fmt.Sprintf("move %s to %s: the destination already exists", e.Path, e.MoveTo)
	case KindDeleteMismatch:
		return fmt.Sprintf("delete %s: the file has lines that the patch does not remove; it changed since the diff was made", e.Path)
	case KindRead:
		return fmt.Sprintf("read %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s %s: %s", e.Op, e.Path, e.Kind)
}

// Unwrap returns the read function's error, if any.
func (e *FileError) Unwrap() error { return e.Err }

// maxShown is the most of a line a message quotes.
const maxShown = 160

// cutAtDifference quotes the lines a and b for a message, each cut to
// maxShown bytes around where they first differ ("…" marking what is left
// out), so that a long line (minified code) does not fill the message.
func cutAtDifference(a, b string) (string, string) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	from := max(0, p-maxShown/4)
	cut := func(s string) string {
		if len(s) <= maxShown {
			return strconv.Quote(s)
		}
		part, before, after := wording.Cut(s, from, from+maxShown)
		q := strconv.Quote(part)
		if before {
			q = "…" + q
		}
		if after {
			q += "…"
		}
		return q
	}
	return cut(a), cut(b)
}

// maxMatches is how many places of an ambiguous hunk HunkError lists.
const maxMatches = 10

func intStrings(ns []int) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return s
}

func joinInts(ns []int) string { return wording.JoinAnd(intStrings(ns)) }
