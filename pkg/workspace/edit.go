package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/errs"
)

// EditResult is the outcome of a successful edit.
type EditResult struct {
	Path         string      `json:"path"`
	Replacements int         `json:"replacements"`
	Ranges       []LineRange `json:"ranges"`
	Fallback     string      `json:"fallback,omitempty"`
	textOut
}

// LineRange is an inclusive range of 1-based line numbers.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Mastra's soft-failure texts.
const (
	editNotFound     = "The specified text was not found. Make sure you use the exact text from the file."
	editNotUniqueFmt = "The specified text appears %d times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences."
)

const bom = "\uFEFF"

// Edit replaces old_string with new_string in a file. It works on the file's
// bytes, so content that is not valid UTF-8 survives untouched. An exact
// match is tried first; when there is none, the same text with the file's
// line endings (CRLF) or without a byte-order mark is tried, and the file's
// CRLF line endings and BOM are kept.
func (w *Workspace) Edit(ctx context.Context, req EditRequest) (*EditResult, error) {
	t, err := w.fs.Resolve(req.Path)
	if err != nil {
		return nil, err
	}
	g, err := w.guardWrite(t, EditFile)
	if err != nil {
		return nil, err
	}
	defer g.release()

	f, _, err := w.fs.OpenRegular(t, "edit")
	if err != nil {
		return nil, err
	}
	content, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, errs.FromOS("read", req.Path, err, false)
	}

	all := req.ReplaceAll != nil && *req.ReplaceAll
	var out []byte
	var ranges []LineRange
	var diffOld, diffNew []byte
	m, err := findEdit(content, []byte(req.OldString), []byte(req.NewString), all)
	switch {
	case err == nil:
		if all {
			out = bytes.ReplaceAll(content, m.old, m.new)
		} else {
			out = bytes.Replace(content, m.old, m.new, 1)
		}
		ranges = editRanges(content, m.old, m.new, all)
		diffOld, diffNew = m.old, m.new
	case errs.CodeOf(err) == errs.NoMatch:
		fm, ferr := fuzzyEdit(content, []byte(req.OldString), []byte(req.NewString), all)
		if ferr != nil {
			return nil, errs.At(ferr, req.Path)
		}
		if fm == nil {
			return nil, errs.At(err, req.Path)
		}
		out, ranges = fm.splice(content), fm.ranges(content)
		m = editMatch{count: len(fm.spans), fallback: fm.kind}
		diffOld, diffNew = content[fm.spans[0].start:fm.spans[0].end], fm.repl[0]
	default:
		return nil, errs.At(err, req.Path)
	}
	if err := w.writeFile(t, g, out, false); err != nil {
		return nil, err
	}

	res := &EditResult{Path: req.Path, Replacements: m.count, Ranges: ranges, Fallback: m.fallback}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Replaced %d occurrence", m.count)
	if m.count != 1 {
		sb.WriteByte('s')
	}
	sb.WriteString(" in " + req.Path + " (lines ")
	for i, r := range ranges {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(r.Start))
		if r.End != r.Start {
			sb.WriteString("-" + strconv.Itoa(r.End))
		}
	}
	sb.WriteByte(')')
	if m.fallback != "" {
		sb.WriteString("\n" + fallbackNote[m.fallback] + "\n")
		sb.WriteString(shortDiff(diffOld, diffNew))
	}
	res.text = sb.String()
	return res, nil
}

// editMatch is the text that will really be replaced, after any fallback.
type editMatch struct {
	old, new []byte
	count    int
	fallback string
}

// Fallbacks, in the order they are tried when the exact text is absent.
const (
	fallbackCRLF = "crlf"
	fallbackLF   = "lf"
	fallbackBOM  = "bom"
)

var fallbackNote = map[string]string{
	fallbackCRLF: "Note: no exact match; matched after converting the given text's LF line endings to the file's CRLF (the file keeps CRLF).",
	fallbackLF:   "Note: no exact match; matched after converting the given text's CRLF line endings to the file's LF.",
	fallbackBOM:  "Note: no exact match; matched after removing a byte-order mark from the given text (the file's own BOM, if any, is kept).",
}

// findEdit decides what to replace. Every candidate, exact or fallback,
// must match exactly once (or at least once with replace_all).
func findEdit(content, old, new []byte, all bool) (editMatch, error) {
	type cand struct {
		old, new []byte
		fallback string
	}
	cands := []cand{{old, new, ""}}
	if bytes.Contains(content, []byte("\r\n")) && bytes.Contains(old, []byte("\n")) && !bytes.Contains(old, []byte("\r\n")) {
		cands = append(cands, cand{toCRLF(old), toCRLF(new), fallbackCRLF})
	}
	if !bytes.Contains(content, []byte("\r\n")) && bytes.Contains(old, []byte("\r\n")) {
		cands = append(cands, cand{bytes.ReplaceAll(old, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(new, []byte("\r\n"), []byte("\n")), fallbackLF})
	}
	if bytes.HasPrefix(old, []byte(bom)) {
		o, n := bytes.TrimPrefix(old, []byte(bom)), bytes.TrimPrefix(new, []byte(bom))
		cands = append(cands, cand{o, n, fallbackBOM})
		if bytes.Contains(content, []byte("\r\n")) && bytes.Contains(o, []byte("\n")) && !bytes.Contains(o, []byte("\r\n")) {
			cands = append(cands, cand{toCRLF(o), toCRLF(n), fallbackBOM})
		}
	}
	for i, c := range cands {
		if len(c.old) == 0 {
			continue
		}
		n := bytes.Count(content, c.old)
		if n == 0 {
			continue
		}
		if n > 1 && !all {
			// Ambiguity is reported for the exact text; a fallback that is
			// ambiguous is no match at all.
			if i == 0 {
				return editMatch{}, errs.EditNotUnique(n)
			}
			continue
		}
		m := editMatch{old: c.old, new: c.new, count: n, fallback: c.fallback}
		// A BOM at the very start of the file survives a replacement whose
		// old text began with it and whose new text does not.
		if c.fallback == "" && bytes.HasPrefix(c.old, []byte(bom)) && !bytes.HasPrefix(c.new, []byte(bom)) && bytes.HasPrefix(content, c.old) && n == 1 {
			m.new = append([]byte(bom), c.new...)
		}
		return m, nil
	}
	return editMatch{}, errs.EditNoMatch()
}

// toCRLF turns bare LF line endings into CRLF.
func toCRLF(b []byte) []byte {
	var out bytes.Buffer
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out.WriteByte('\r')
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// editRanges computes Mastra's reported line ranges on the original content:
// from the line of an occurrence's first byte to the larger of its own last
// line and the number of lines of the new text.
func editRanges(content, old, new []byte, all bool) []LineRange {
	nl := []byte("\n")
	newLines := bytes.Count(new, nl) + 1
	var out []LineRange
	pos, line := 0, 1 // line = 1 + newlines in content[:pos]
	for {
		i := bytes.Index(content[pos:], old)
		if i < 0 {
			break
		}
		at := pos + i
		start := line + bytes.Count(content[pos:at], nl)
		oldEnd := start + bytes.Count(old[:len(old)-1], nl)
		span := max(newLines, oldEnd-start+1)
		out = append(out, LineRange{Start: start, End: start + span - 1})
		pos, line = at+len(old), start+bytes.Count(old, nl)
		if !all {
			break
		}
	}
	return out
}

// shortDiff shows what a fallback replaced, at most a few lines each way.
func shortDiff(old, new []byte) string {
	const maxLines = 8
	var sb strings.Builder
	side := func(mark string, b []byte) {
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), "\n")
		for i, l := range lines {
			if i == maxLines {
				fmt.Fprintf(&sb, "%s … (%d more lines)\n", mark, len(lines)-maxLines)
				break
			}
			sb.WriteString(mark + " " + strings.TrimPrefix(l, bom) + "\n")
		}
	}
	side("-", old)
	side("+", new)
	return strings.TrimSuffix(sb.String(), "\n")
}
