package patch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	unifiedRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`) })
)

const devNull = "/dev/null"

type unifiedParser struct {
	lines []string
	base  int
}

func (u *unifiedParser) num(i int) int { return u.base + i + 1 }

func (u *unifiedParser) errf(kind Kind, i int, format string, args ...any) error {
	return &ParseError{Kind: kind, Line: u.num(i), Msg: fmt.Sprintf(format, args...)}
}

func parseUnified(lines []string, base int) (*Patch, error) {
	u := &unifiedParser{lines: lines, base: base}
	p := &Patch{Format: FormatUnified}
	for i := 0; i < len(lines); {
		l := lines[i]
		var fp *FilePatch
		var err error
		switch {
		case strings.HasPrefix(l, "diff --git "):
			fp, i, err = u.file(i, true)
		case u.fileHeader(i):
			fp, i, err = u.file(i, false)
		case strings.HasPrefix(l, "@@"):
			return nil, u.errf(KindSyntax, i, "hunk outside a file: a unified diff names the file first (\"--- a/PATH\" then \"+++ b/PATH\"), then gives its hunks one after the other")
		case l == "-- ":
			// The signature line that git format-patch puts after the diff.
			return p, nil
		default:
			i++ // text around the diff: a commit message, "Index:" lines...
			continue
		}
		if err != nil {
			return nil, err
		}
		if fp != nil {
			p.Files = append(p.Files, *fp)
		}
	}
	return p, nil
}

// fileHeader reports whether lines i and i+1 are "--- " and "+++ ".
func (u *unifiedParser) fileHeader(i int) bool {
	return i+1 < len(u.lines) && strings.HasPrefix(u.lines[i], "--- ") && strings.HasPrefix(u.lines[i+1], "+++ ")
}

// file reads one file's diff: a git header with its extended lines, or
// just "--- " and "+++ ", then its hunks. It returns nil for a git diff that
// changes nothing but the mode.
func (u *unifiedParser) file(i int, git bool) (*FilePatch, int, error) {
	at := i
	var err error
	var oldName, newName, renameFrom, renameTo, oldMode string
	var isNew, isDeleted, haveNames bool
	exec := ExecKeep
	j := i
	if git {
		oldName, newName, haveNames = splitGitHeader(u.lines[i][len("diff --git "):])
		j++
	extended:
		for ; j < len(u.lines); j++ {
			l := u.lines[j]
			switch {
			case strings.HasPrefix(l, "new file mode "):
				isNew = true
				if exec, err = u.mode(j, l[len("new file mode "):], true); err != nil {
					return nil, 0, err
				}
			case strings.HasPrefix(l, "old mode "):
				oldMode = strings.TrimSpace(l[len("old mode "):])
			case strings.HasPrefix(l, "new mode "):
				if exec, err = u.mode(j, l[len("new mode "):], false); err != nil {
					return nil, 0, err
				}
				if strings.TrimSpace(l[len("new mode "):]) == oldMode {
					exec = ExecKeep
				}
			case strings.HasPrefix(l, "deleted file mode "):
				isDeleted = true
			case strings.HasPrefix(l, "rename from "):
				renameFrom = unquote(l[len("rename from "):])
			case strings.HasPrefix(l, "rename to "):
				renameTo = unquote(l[len("rename to "):])
			case strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
				return nil, 0, u.errf(KindUnsupported, j, "copies are not supported; add the new file with its full content instead")
			case strings.HasPrefix(l, "Binary files "), l == "GIT binary patch":
				return nil, 0, u.errf(KindUnsupported, j, "binary diffs are not supported")
			case strings.HasPrefix(l, "index "),
				strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "dissimilarity index "):
			default:
				break extended
			}
		}
	}
	recursive := false // the header of diff -r, after its "diff -ruN OLD NEW" line
	if u.fileHeader(j) {
		rawOld, rawNew := fileName(u.lines[j][len("--- "):]), fileName(u.lines[j+1][len("+++ "):])
		recursive = !git && j > 0 && strings.HasPrefix(u.lines[j-1], "diff ") && strings.HasSuffix(u.lines[j-1], " "+rawOld+" "+rawNew)
		oldName, newName = stripPrefix(rawOld, "a/"), stripPrefix(rawNew, "b/")
		// diff -N gives a file missing on one side the time of the epoch
		// (and its one hunk an empty range on that side).
		if next := ""; !git {
			if j+2 < len(u.lines) {
				next = u.lines[j+2]
			}
			switch {
			case epoch(u.lines[j][len("--- "):]) && strings.HasPrefix(next, "@@ -0,0 "):
				isNew = true
			case epoch(u.lines[j+1][len("+++ "):]) && strings.Contains(next, " +0,0 @@"):
				isDeleted = true
			}
		}
		haveNames = true
		j += 2
	}
	if renameFrom != "" || renameTo != "" {
		if renameFrom == "" || renameTo == "" {
			return nil, 0, u.errf(KindSyntax, at, "\"rename from\" and \"rename to\" go together")
		}
		oldName, newName, haveNames = renameFrom, renameTo, true
	}
	if !haveNames {
		return nil, 0, u.errf(KindSyntax, at, "cannot tell the file's name from %q; add \"--- a/PATH\" and \"+++ b/PATH\" lines", clip(u.lines[at]))
	}
	strippedOld, strippedNew := oldName, newName
	if renameFrom == "" {
		strippedOld, strippedNew = stripDirPrefixes(oldName, newName)
	}
	if recursive {
		oldName, newName = strippedOld, strippedNew
	}
	fp := &FilePatch{Op: Update, PatchLine: u.num(at), Exec: exec}
	switch {
	case isNew || oldName == devNull:
		fp.Op, fp.Path = Add, newName
	case isDeleted || newName == devNull:
		fp.Op, fp.Path = Delete, oldName
	default:
		fp.Path = oldName
		if newName != oldName {
			if renameFrom == "" && strippedOld == strippedNew {
				return nil, 0, u.errf(KindSyntax, at, "the diff names %q and %q, which differ only in their first directory: ws drops only a/ and b/ (and the first directory of each name in the output of diff -r); give both sides the same name (run diff -u from inside the directory, or git diff), or a/ and b/ prefixes", oldName, newName)
			}
			if renameFrom == "" {
				return nil, 0, u.errf(KindSyntax, at, "the diff names two files, %q and %q; to rename, use \"rename from\" and \"rename to\" lines", oldName, newName)
			}
			fp.MoveTo = newName
		}
	}
	if fp.Path == devNull {
		return nil, 0, u.errf(KindSyntax, at, "both sides of the diff are %s", devNull)
	}
	if fp.Path, err = cleanPath(fp.Path, u.num(at)); err != nil {
		return nil, 0, err
	}
	if fp.MoveTo != "" {
		if fp.MoveTo, err = cleanPath(fp.MoveTo, u.num(at)); err != nil {
			return nil, 0, err
		}
		if fp.MoveTo == fp.Path {
			fp.MoveTo = ""
		}
	}
	for j < len(u.lines) && strings.HasPrefix(u.lines[j], "@@") {
		var h Hunk
		if h, j, err = u.hunk(j); err != nil {
			return nil, 0, err
		}
		fp.Hunks = append(fp.Hunks, h)
		for j < len(u.lines) && u.lines[j] == "" {
			j++ // blank lines between hunks
		}
	}
	switch fp.Op {
	case Add:
		var b strings.Builder
		for _, h := range fp.Hunks {
			for _, l := range h.Lines {
				if l.Kind != Insert {
					return nil, 0, u.errf(KindSyntax, h.PatchLine-u.base-1, "the hunk of new file %s has a line that does not start with '+'", fp.Path)
				}
				b.WriteString(l.Text)
				b.WriteByte('\n')
			}
			if h.Newline == DropNewline {
				s := b.String()
				b.Reset()
				b.WriteString(s[:len(s)-1])
			}
		}
		fp.Content, fp.Hunks = []byte(b.String()), nil
	case Delete:
		for _, h := range fp.Hunks {
			for _, l := range h.Lines {
				if l.Kind != Remove {
					return nil, 0, u.errf(KindSyntax, h.PatchLine-u.base-1, "the hunk of deleted file %s has a line that does not start with '-'", fp.Path)
				}
			}
		}
	case Update:
		if len(fp.Hunks) == 0 && fp.MoveTo == "" {
			if git && fp.Exec != ExecKeep {
				return fp, j, nil // a change of mode only
			}
			if git {
				return nil, j, nil // nothing (a mode line naming the mode it had)
			}
			return nil, 0, u.errf(KindSyntax, at, "no hunks for %s; a hunk starts with \"@@ -LINE,COUNT +LINE,COUNT @@\"", fp.Path)
		}
	}
	return fp, j, nil
}

// mode reads the mode of a "new file mode" (isNew) or "new mode" line
// (line i): 100755 sets the executable bit, 100644 clears it (a new file
// has it clear anyway). A symbolic link (120000) or a submodule (160000)
// is refused: this package writes files only.
func (u *unifiedParser) mode(i int, m string, isNew bool) (Exec, error) {
	switch strings.TrimSpace(m) {
	case "100755":
		return ExecSet, nil
	case "100644":
		if isNew {
			return ExecKeep, nil
		}
		return ExecClear, nil
	case "120000":
		return 0, u.errf(KindUnsupported, i, "symbolic links (mode 120000) are not supported; ws patch writes regular files only")
	case "160000":
		return 0, u.errf(KindUnsupported, i, "submodules (mode 160000) are not supported")
	}
	return 0, u.errf(KindSyntax, i, "unknown file mode %q; git writes 100644 or 100755", clip(strings.TrimSpace(m)))
}

// hunk reads the hunk whose header is line i. A header with line numbers
// fixes how many lines the hunk has, and they must all be there; a bare "@@"
// hunk runs to the next header.
func (u *unifiedParser) hunk(i int) (Hunk, int, error) {
	header := u.lines[i]
	h := Hunk{PatchLine: u.num(i)}
	if m := unifiedRange().FindStringSubmatch(header); m != nil {
		h.HasRange = true
		h.OldStart, h.OldCount = atoi(m[1]), countOf(m[2])
		h.NewStart, h.NewCount = atoi(m[3]), countOf(m[4])
		if h.OldStart < 0 || h.OldCount < 0 || h.NewStart < 0 || h.NewCount < 0 {
			return h, 0, u.errf(KindSyntax, i, "bad hunk header %q: a line number or count is too large", clip(header))
		}
	} else if rest := strings.TrimSpace(header[2:]); strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
		// Not a bare header ("@@", "@@ @@", "@@ ... @@", as language models
		// often write them), but a range gone wrong.
		return h, 0, u.errf(KindSyntax, i, "bad hunk header %q; want \"@@ -LINE,COUNT +LINE,COUNT @@\"", clip(header))
	}
	var oldSeen, newSeen int
	lastOld, lastNew := -1, -1 // index in h.Lines of the last line of each side
	markOld, markNew := -1, -1 // index in h.Lines that a "\ No newline" marker follows
	j := i + 1
	for ; j < len(u.lines); j++ {
		l := u.lines[j]
		if strings.HasPrefix(l, `\`) {
			if len(h.Lines) == 0 {
				return h, 0, u.errf(KindSyntax, j, "%q must follow a line of the hunk", clip(l))
			}
			k := len(h.Lines) - 1
			switch h.Lines[k].Kind {
			case Context:
				markOld, markNew = k, k
			case Remove:
				markOld = k
			case Insert:
				markNew = k
			}
			continue
		}
		if h.HasRange {
			if oldSeen == h.OldCount && newSeen == h.NewCount {
				break
			}
		} else if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff ") || u.fileHeader(j) || l == "-- " {
			break
		}
		var kind LineKind
		switch {
		case l == "":
			kind = Context // an empty context line whose space was lost
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			kind = LineKind(l[0])
		default:
			if h.HasRange {
				return h, 0, u.countError(i, h, oldSeen, newSeen)
			}
		}
		if kind == 0 {
			break
		}
		if kind != Insert {
			oldSeen++
		}
		if kind != Remove {
			newSeen++
		}
		if h.HasRange && (oldSeen > h.OldCount || newSeen > h.NewCount) {
			return h, 0, u.countError(i, h, -1, -1)
		}
		if kind != Insert {
			lastOld = len(h.Lines)
		}
		if kind != Remove {
			lastNew = len(h.Lines)
		}
		h.Lines = append(h.Lines, Line{Kind: kind, Text: strings.TrimPrefix(l, string(kind))})
	}
	if h.HasRange {
		if oldSeen != h.OldCount || newSeen != h.NewCount {
			return h, 0, u.countError(i, h, oldSeen, newSeen)
		}
		if j < len(u.lines) && isHunkLine(u.lines[j]) && !u.fileHeader(j) && u.lines[j] != "-- " {
			return h, 0, u.countError(i, h, -1, -1)
		}
	} else {
		// Blank lines at the end of a bare hunk only separate it from what follows.
		for len(h.Lines) > 0 && h.Lines[len(h.Lines)-1] == (Line{Kind: Context}) && j > i+1 && u.lines[j-1] == "" {
			h.Lines = h.Lines[:len(h.Lines)-1]
			j--
		}
		lastOld, lastNew = -1, -1
		for k, l := range h.Lines {
			if l.Kind != Insert {
				lastOld = k
			}
			if l.Kind != Remove {
				lastNew = k
			}
		}
	}
	if (markOld >= 0 && markOld != lastOld) || (markNew >= 0 && markNew != lastNew) {
		return h, 0, u.errf(KindSyntax, i, "in the hunk at this line, \"\\ No newline at end of file\" follows a line that is not the last of its side")
	}
	if len(h.Lines) == 0 || !h.changes() {
		return h, 0, u.errf(KindSyntax, i, "the hunk changes nothing: it has no '+' or '-' line")
	}
	h.EndOfFile = markOld >= 0 || markNew >= 0
	switch {
	case markNew >= 0:
		h.Newline = DropNewline
	case markOld >= 0:
		h.Newline = AddNewline
	}
	return h, j, nil
}

// countError reports a hunk whose body does not have the number of lines
// its header says. With counts of -1, it counts the body as running to the
// next header.
func (u *unifiedParser) countError(i int, h Hunk, oldSeen, newSeen int) error {
	if oldSeen < 0 {
		oldSeen, newSeen = 0, 0
		for j := i + 1; j < len(u.lines); j++ {
			l := u.lines[j]
			if strings.HasPrefix(l, `\`) {
				continue
			}
			if !(l == "" || isHunkLine(l)) || u.fileHeader(j) {
				break
			}
			if l == "" || l[0] != '+' {
				oldSeen++
			}
			if l == "" || l[0] != '-' {
				newSeen++
			}
		}
	}
	return u.errf(KindSyntax, i, "the hunk header %q counts %d old and %d new lines but the hunk has %d and %d; fix the counts (or write a bare \"@@\" line to have them ignored)",
		clip(u.lines[i]), h.OldCount, h.NewCount, oldSeen, newSeen)
}

// atoi returns the number s, or -1 when it does not fit an int32 (no file
// has that many lines).
func atoi(s string) int {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return -1
	}
	return int(n)
}

func countOf(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}

// fileName returns the name on a "--- " or "+++ " line: unquoted, without
// the tab and timestamp that diff -u appends.
func fileName(s string) string {
	if strings.HasPrefix(s, `"`) {
		if name, _, ok := cutQuoted(s); ok {
			return name
		}
	}
	if k := strings.IndexByte(s, '\t'); k >= 0 {
		s = s[:k]
	}
	return strings.TrimRight(s, " ")
}

// epoch reports whether the header of a diff -u side ends in the time of
// the epoch, in any time zone: diff -N (--new-file) gives that time to a
// file absent from its side, as GNU patch reads it.
func epoch(s string) bool {
	k := strings.IndexByte(s, '\t')
	if k < 0 || strings.HasPrefix(s, `"`) {
		return false
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999 -0700", "2006-01-02 15:04:05 -0700"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s[k+1:])); err == nil {
			return t.Unix() == 0
		}
	}
	return false
}

// stripDirPrefixes removes the first component of both names when that
// is all they differ in: "diff -ruN old new" names "old/sub/f.txt" and
// "new/sub/f.txt", which is sub/f.txt, as git apply (and patch -p1) read
// it. Other names are returned as they are. The parser drops the
// components only in the output of diff -r, whose "diff -ruN OLD NEW"
// line before each file says that two trees were compared; elsewhere
// such names may be a rename written without "rename from" lines.
func stripDirPrefixes(oldName, newName string) (string, string) {
	if oldName == newName || oldName == devNull || newName == devNull {
		return oldName, newName
	}
	_, o, ok1 := strings.Cut(oldName, "/")
	_, n, ok2 := strings.Cut(newName, "/")
	if ok1 && ok2 && o == n && o != "" {
		return o, n
	}
	return oldName, newName
}

func stripPrefix(name, prefix string) string {
	if name == devNull {
		return name
	}
	return strings.TrimPrefix(name, prefix)
}

// splitGitHeader splits the rest of a "diff --git a/X b/Y" line into X
// and Y. Unquoted names with spaces are only split when both are the same.
func splitGitHeader(s string) (oldName, newName string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok || !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		b := fileName(rest[1:])
		return stripPrefix(a, "a/"), stripPrefix(b, "b/"), true
	}
	if k := strings.Index(s, ` "`); k >= 0 {
		if b, _, ok := cutQuoted(s[k+1:]); ok {
			return stripPrefix(s[:k], "a/"), stripPrefix(b, "b/"), true
		}
	}
	if n := (len(s) - 1) / 2; len(s)%2 == 1 && s[n] == ' ' {
		a, b := stripPrefix(s[:n], "a/"), stripPrefix(s[n+1:], "b/")
		if a == b {
			return a, b, true
		}
	}
	if strings.Count(s, " b/") == 1 {
		k := strings.Index(s, " b/")
		return stripPrefix(s[:k], "a/"), stripPrefix(s[k+1:], "b/"), true
	}
	return "", "", false
}

// unquote undoes git's C-style quoting of a name, if it is quoted.
func unquote(s string) string {
	if name, _, ok := cutQuoted(s); ok {
		return name
	}
	return s
}

// cEscapes are the letters that may follow a backslash in a C-style quoted
// name, and cEscaped the bytes they stand for, in the same order.
const cEscapes, cEscaped = "abfnrtv", "\a\b\f\n\r\t\v"

// cutQuoted reads the C-style quoted string at the start of s (as git
// writes names with unusual bytes) and returns it with the rest of s.
func cutQuoted(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return string(b), s[i+1:], true
		case '\\':
			i++
			if i >= len(s) {
				return "", s, false
			}
			e := s[i]
			switch k := strings.IndexByte(cEscapes, e); {
			case k >= 0:
				b = append(b, cEscaped[k])
			case '0' <= e && e <= '3':
				if i+2 >= len(s) {
					return "", s, false
				}
				n, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", s, false
				}
				b = append(b, byte(n))
				i += 2
			default:
				b = append(b, e)
			}
		default:
			b = append(b, c)
		}
	}
	return "", s, false
}
