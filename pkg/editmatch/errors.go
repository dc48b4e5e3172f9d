package editmatch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mastra's texts (edit_file, @mastra/core 1.71.0).
const (
	notFoundText  = "The specified text was not found. Make sure you use the exact text from the file."
	ambiguousText = "The specified text appears %d times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences."
)

// NotFoundError is returned when old_string matches nowhere, exactly or
// through a fallback, or when the only place it matches cannot be edited
// safely (Reason says why). Its text starts with Mastra's not-found text;
// the lines after it help the model fix old_string.
type NotFoundError struct {
	// CandidateStart and CandidateEnd are the lines (1-based, inclusive)
	// of the region of the file most like old_string; 0 when there is none.
	CandidateStart, CandidateEnd int
	// DiffLine is the file line where that region first differs from
	// old_string (0 when unknown); FileLine is that line of the file and
	// OldLine the line of old_string it was compared with, both as they
	// are (without line ending). FileLine is empty with DiffLine 0 when
	// the file ended first.
	DiffLine          int
	FileLine, OldLine string
	// Reason, when set, is a sentence saying why nothing was edited
	// although old_string matched loosely (its indentation does not map
	// onto the file's, the file has many more blank lines in the block, or
	// old_string is too repetitive to search), or that old_string is empty.
	Reason string
	// Elided is set when old_string holds an elision marker such as
	// "// ... existing code ..."; Marker is that line.
	Elided bool
	Marker string
	// AlreadyApplied, when set, holds the lines where new_string already
	// is (and old_string is not).
	AlreadyApplied *Range
	// Stale is set by the caller when the file changed since the model
	// last read it; the text then tells it to read the file again.
	Stale bool
}

// Terms are the names a text gives the edit's parameters.
type Terms struct{ Old, New, ReplaceAll string }

// JSONTerms are edit_file's parameter names, which Error uses.
var JSONTerms = Terms{Old: "old_string", New: "new_string", ReplaceAll: "replace_all"}

// Rename puts t's names for the parameter names in s, one of this
// package's own sentences (never one that quotes the file or the edit).
func (t Terms) Rename(s string) string {
	if t == JSONTerms {
		return s
	}
	return strings.NewReplacer("old_string", t.Old, "new_string", t.New, "replace_all", t.ReplaceAll).Replace(s)
}

// Error returns Mastra's text, then what is known about the closest place.
func (e *NotFoundError) Error() string { return e.Text(JSONTerms) }

// Text is Error's text with the parameters named as t says; the lines of
// the file and of old_string it quotes are shown as they are.
func (e *NotFoundError) Text(t Terms) string {
	var sb strings.Builder
	sb.WriteString(notFoundText)
	if e.Reason != "" {
		sb.WriteString("\n" + t.Rename(e.Reason))
	}
	if e.Elided {
		fmt.Fprintf(&sb, "\n%s contains %q, which looks like an elision: %s must be the literal text from the file, not an abbreviation. Copy every line of the block in full.", t.Old, strings.TrimSpace(e.Marker), t.Old)
	}
	if r := e.AlreadyApplied; r != nil {
		fmt.Fprintf(&sb, "\n%s is already present at %s; the edit may have been applied already.", t.New, r.lines())
	}
	if e.CandidateStart > 0 {
		fmt.Fprintf(&sb, "\nThe closest text is at %s", Range{e.CandidateStart, e.CandidateEnd}.lines())
		if e.DiffLine > 0 || e.OldLine != "" {
			legend := false
			file := "(end of file)"
			if e.DiffLine > 0 {
				fmt.Fprintf(&sb, "; it first differs at line %d:", e.DiffLine)
				var l1 bool
				file, l1 = visible(e.FileLine)
				legend = legend || l1
			} else {
				sb.WriteString("; the file ends before old_string does:")
			}
			old, l2 := visible(e.OldLine)
			legend = legend || l2
			width := max(len("file"), len(t.Old)) + 2
			fmt.Fprintf(&sb, "\n  %-*s%s", width, "file:", file)
			fmt.Fprintf(&sb, "\n  %-*s%s", width, t.Old+":", old)
			if legend {
				sb.WriteString("\n  (→ is a tab, · a trailing space, \\r a carriage return, <U+XXXX> an invisible character)")
			}
		} else {
			sb.WriteByte('.')
		}
	}
	if e.Stale {
		sb.WriteString("\nThe file has changed since you last read it; read it again before editing.")
	}
	return sb.String()
}

// AmbiguousError is returned when old_string matches more than one place
// and replace_all is not set, or when replace_all would mix places that
// match at different fallback steps or that overlap.
type AmbiguousError struct {
	// Count is the number of places (without replace_all, counting stops
	// at 1000 places found through fallbacks).
	Count int
	// AtLeast is set when counting stopped there, so that old_string
	// may match more places than Count.
	AtLeast bool
	// Lines are the lines of the places (1-based, inclusive), in order,
	// at most 20 entries: places on the same lines (matched at the same
	// step) are one entry.
	Lines []Range
	// Times has, for each entry of Lines, how many places it holds (nil:
	// one each, as in an error made by hand). Every place on those lines
	// is counted, however many there are.
	Times []int
	// Fallbacks has, for each entry of Lines, the step that matched its
	// places; nil when old_string occurs exactly Count times.
	Fallbacks []string
	// ReplaceAll is set when the request had replace_all (so the places
	// were refused for matching at different steps, or for overlapping).
	ReplaceAll bool
	// Overlap is set when some places overlap (or touch, and the edit
	// would join them into one line).
	Overlap bool
}

// Error returns Mastra's text for an exact text found several times, and
// a text of ws's own when the places were found through fallbacks.
func (e *AmbiguousError) Error() string { return e.Text(JSONTerms) }

// Text is Error's text with the parameters named as t says.
func (e *AmbiguousError) Text(t Terms) string { return t.Rename(e.text()) }

func (e *AmbiguousError) text() string {
	var places []string
	listed := 0
	for i, r := range e.Lines {
		var notes []string
		n := 1
		if i < len(e.Times) {
			n = e.Times[i]
		}
		if n > 1 {
			notes = append(notes, thousands(n)+" times")
		}
		if e.Fallbacks != nil {
			notes = append(notes, e.Fallbacks[i])
		}
		s := r.lines()
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, ", ") + ")"
		}
		places = append(places, s)
		listed += n
	}
	list := strings.Join(places, ", ")
	if listed < e.Count || e.AtLeast {
		list += ", …"
	}
	if e.Fallbacks == nil {
		return fmt.Sprintf(ambiguousText, e.Count) + "\nIt appears at " + list + "."
	}
	var sb strings.Builder
	count := thousands(e.Count)
	if e.AtLeast {
		count = "at least " + count
	}
	fmt.Fprintf(&sb, "The specified text was not found exactly, and with formatting differences ignored it matches %s places: %s. Provide more surrounding context to make the match unique.", count, list)
	mixed := false
	for _, f := range e.Fallbacks {
		mixed = mixed || f != e.Fallbacks[0]
	}
	switch {
	case e.Overlap:
		sb.WriteString(" Some of these places overlap or would run together.")
	case e.ReplaceAll && mixed:
		sb.WriteString(" replace_all was not applied because these places differ from old_string in different ways; edit them one at a time, or copy old_string exactly from the file.")
	case !e.ReplaceAll && !mixed:
		sb.WriteString(" To change all of them, use replace_all.")
	}
	return sb.String()
}

// lines formats a range as "line N" or "lines N-M".
func (r Range) lines() string {
	if r.End <= r.Start {
		return "line " + strconv.Itoa(r.Start)
	}
	return "lines " + strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
}

// thousands formats n with a comma between groups of three digits, as
// "4,250,000".
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// maxShown bounds how much of a line an error message shows.
const maxShown = 160

// visible makes a line's invisible characters visible: a tab as →, each
// trailing space as ·, a carriage return as \r, and other invisible or
// unusual space characters as <U+XXXX>. It reports whether it changed
// anything.
func visible(s string) (string, bool) {
	body := strings.TrimRight(s, " ")
	trailing := len(s) - len(body)
	var sb strings.Builder
	changed := trailing > 0
	n := 0
	for i := 0; i < len(body); {
		if n == maxShown {
			sb.WriteString("…")
			trailing = 0
			break
		}
		r, size := utf8.DecodeRuneInString(body[i:])
		switch {
		case r == '\t':
			sb.WriteString("→")
			changed = true
		case r == '\r':
			sb.WriteString(`\r`)
			changed = true
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&sb, `\x%02x`, body[i])
			changed = true
		case r < ' ' || r == 0x7f || invisible(r):
			fmt.Fprintf(&sb, "<U+%04X>", r)
			changed = true
		default:
			sb.WriteString(body[i : i+size])
		}
		i += size
		n++
	}
	sb.WriteString(strings.Repeat("·", trailing))
	return sb.String(), changed
}

// invisible reports characters that look like a space or like nothing.
func invisible(r rune) bool {
	switch r {
	case '\u00AD', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF':
		return true
	}
	return fold(r) == " "
}
