package workspace

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/tokens"
)

// Kinds of read results.
const (
	ReadText     = "text"      // lines of a text file
	ReadEncoded  = "encoded"   // bytes in base64, hex or latin1
	ReadMedia    = "media"     // an image or PDF returned as a media part
	ReadBinary   = "binary"    // metadata only: binary without an encoding
	ReadTooLarge = "too_large" // metadata only: media over maxMediaBytes
	ReadPastEnd  = "past_end"  // offset beyond the last line
)

// ReadResult is the outcome of read. Text holds what the model is shown.
type ReadResult struct {
	Path       Bytes  `json:"path"`
	Size       int64  `json:"size"`
	Kind       string `json:"kind"`
	MediaType  string `json:"mediaType,omitempty"`
	Data       string `json:"data,omitempty"`
	Encoding   string `json:"encoding,omitempty"`
	Content    *Bytes `json:"content,omitempty"` // the lines shown, without numbers; {"bytes": base64} when not UTF-8
	StartLine  int    `json:"start_line,omitempty"`
	EndLine    int    `json:"end_line,omitempty"`
	TotalLines *int   `json:"total_lines,omitempty"`
	Truncated  bool   `json:"truncated"`
	NextOffset int    `json:"next_offset,omitempty"`
	textOut
}

// IsMedia reports whether the result carries a media part.
func (r *ReadResult) IsMedia() bool { return r.Kind == ReadMedia }

const (
	defaultReadTokens = 2000
	readBufSize       = 1 << 20
	maxLineBytes      = 16 << 20 // one line kept for display at most
	maxWindowBytes    = 64 << 20 // all shown lines together at most
	maxEncodedBytes   = 8 << 20  // bytes encoded for one base64/hex/binary read
)

// Read reads a file: text as numbered lines within a token budget, media
// as a base64 part, binary as a one-line description unless an encoding is
// asked for. Only the requested window of a text file is held in memory.
func (w *Workspace) Read(ctx context.Context, req ReadRequest) (*ReadResult, error) {
	t, f, st, err := w.openRead(req.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := w.readOpen(f, st, t, req, dialectOf(ctx))
	if err != nil {
		return nil, err
	}
	// The record holds the size and mtime seen before reading, so a change
	// made while the file was being read still counts as a change.
	if err := w.recordRead(fsroot.RealPathOf(int(f.Fd()), string(t.Abs)), st); err != nil {
		return nil, err
	}
	return res, nil
}

// openRead resolves path and opens the regular file it names, to read
// it; the caller closes f.
func (w *Workspace) openRead(path string) (*fsroot.Target, *os.File, fsroot.FileStat, error) {
	if path == "" {
		return nil, nil, fsroot.FileStat{}, errs.EmptyFilePath()
	}
	t, err := w.fs.Resolve(path)
	if err != nil {
		return nil, nil, fsroot.FileStat{}, err
	}
	f, st, err := w.fs.OpenRegular(t, "read")
	return t, f, st, err
}

func (w *Workspace) readOpen(f *os.File, st fsroot.FileStat, t *fsroot.Target, req ReadRequest, d Dialect) (*ReadResult, error) {
	rel := t.Rel()
	head := make([]byte, media.SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, errs.FromOS("read", req.Path, err, false)
	}
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, errs.FromOS("read", req.Path, err, false)
	}
	kind := media.Classify(string(rel), head)
	res := &ReadResult{Path: Bytes(rel), Size: st.Size}
	budget := w.cfg.MaxOutputTokens(ReadFile, defaultReadTokens)

	// Media is decided by content too: text in a .png is text. A text type
	// (image/svg+xml) is media only when mediaTypes names it.
	if media.MatchPatterns(w.cfg.MediaTypes(ReadFile), kind.MIME) && (!kind.Text || media.IsText(kind.MIME)) {
		maxMedia := w.cfg.MaxMediaBytes(ReadFile)
		if st.Size <= maxMedia {
			data, err := io.ReadAll(io.LimitReader(f, maxMedia+1))
			if err != nil {
				return nil, errs.FromOS("read", req.Path, err, false)
			}
			res.Kind, res.MediaType = ReadMedia, kind.MIME
			res.Data = base64.StdEncoding.EncodeToString(data)
			res.text = fmt.Sprintf("%s (%d bytes, %s)", rel, st.Size, kind.MIME)
			return res, nil
		}
		if req.Encoding == "" {
			res.Kind, res.MediaType = ReadTooLarge, kind.MIME
			res.text = fmt.Sprintf("%s (%d bytes, %s) — exceeds maxMediaBytes (%d). Returning metadata only; configure `maxMediaBytes` on the read_file tool to raise this cap.",
				rel, st.Size, kind.MIME, maxMedia)
			return res, nil
		}
	}
	switch req.Encoding {
	case "base64", "hex", "binary":
		return w.readEncoded(f, st, res, req, budget, d)
	case "":
		if !kind.Text {
			res.Kind, res.MediaType = ReadBinary, kind.MIME
			enc, eg := "`encoding`", "`base64`"
			if d == CLIFlags {
				enc, eg = "`--encoding`", "`--encoding base64`"
			}
			res.text = fmt.Sprintf("%s (%d bytes, %s) — binary file not readable as text. Pass an explicit %s (e.g. %s) to read the raw bytes, or configure `mediaTypes` on the read_file tool to surface it as a media part.",
				rel, st.Size, kind.MIME, enc, eg)
			return res, nil
		}
	}
	return readLines(f, st, res, req, budget, d)
}

// readEncoded encodes a window of bytes: offset is the first byte
// (1-based), limit the number of bytes (Mastra reads encoded files whole and
// takes neither). A window the budget cannot hold is cut at a whole unit of
// the encoding (3 bytes of base64, a byte of hex or latin1), so what is shown
// decodes on its own, and the notice says which offset continues.
func (w *Workspace) readEncoded(f *os.File, st fsroot.FileStat, res *ReadResult, req ReadRequest, budget int, d Dialect) (*ReadResult, error) {
	enc := req.Encoding
	ranged := req.Offset != nil || req.Limit != nil
	start := int64(1)
	if req.Offset != nil {
		start = int64(*req.Offset)
	}
	if start > 1 && start > st.Size {
		res.Kind = ReadPastEnd
		if st.Size == 0 {
			res.text = fmt.Sprintf("%s (0 bytes): offset %d is past the end of the file, which is empty. The file has been fully read; stop paginating.", res.Path, start)
		} else {
			res.text = fmt.Sprintf("%s (%d bytes): offset %d is past the end of the file (with an encoding, offsets count bytes: valid offsets 1-%d). The file has been fully read; stop paginating.",
				res.Path, st.Size, start, st.Size)
		}
		return res, nil
	}
	want := int64(maxEncodedBytes)
	if req.Limit != nil {
		want = min(want, int64(*req.Limit))
	}
	if _, err := f.Seek(start-1, io.SeekStart); err != nil {
		return nil, errs.FromOS("read", string(res.Path), err, false)
	}
	data, err := io.ReadAll(io.LimitReader(f, want))
	if err != nil {
		return nil, errs.FromOS("read", string(res.Path), err, false)
	}
	header := func(n int) string {
		if !ranged || st.Size == 0 {
			return fmt.Sprintf("%s (%d bytes, %s)", res.Path, st.Size, enc)
		}
		return fmt.Sprintf("%s (bytes %d-%d of %d, %s)", res.Path, start, start+int64(n)-1, st.Size, enc)
	}
	unit := 1
	if enc == "base64" {
		unit = 3
	}
	n := len(data)
	text := header(n) + "\n" + encodeBytes(enc, data)
	if tokens.Exceeds(text, budget) {
		// The head the budget holds, in whole units; then fewer units
		// while the estimate (which a shorter header or a cut can move
		// by a token) is still over.
		shown := strings.TrimPrefix(tokens.HeadTokens(text, budget), header(n)+"\n")
		switch enc {
		case "base64":
			n = len(shown) / 4 * 3
		case "hex":
			n = len(shown) / 2
		default:
			n = utf8.RuneCountInString(shown)
		}
		n = max(min(n/unit*unit, len(data)), min(unit, len(data)))
		for n > unit && tokens.Exceeds(header(n)+"\n"+encodeBytes(enc, data[:n]), budget) {
			n -= unit
		}
	}
	content := Bytes(encodeBytes(enc, data[:n]))
	res.Kind, res.Encoding, res.Content = ReadEncoded, enc, &content
	res.text = header(n) + "\n" + string(content)
	last := start + int64(n) - 1
	if last < st.Size && (req.Limit == nil || int64(n) < int64(*req.Limit)) {
		res.Truncated, res.NextOffset = true, int(last+1)
		res.text += fmt.Sprintf("\n[output truncated: showing bytes %d-%d of %d; continue with %s]", start, last, st.Size, d.setting("offset", "offset", last+1))
	}
	return res, nil
}

// encodeBytes is data in a read's encoding: base64, hex, or binary (latin1).
func encodeBytes(enc string, data []byte) string {
	switch enc {
	case "base64":
		return base64.StdEncoding.EncodeToString(data)
	case "hex":
		return hex.EncodeToString(data)
	}
	return latin1(data)
}

// latin1 maps each byte to the code point of the same value, as Node's
// "binary" encoding does.
func latin1(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) * 2)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// readLines produces the numbered text of a window of lines. The window is
// cut at whole lines so the output never exceeds the token budget, and the
// notice then says which offset continues the reading.
func readLines(f *os.File, st fsroot.FileStat, res *ReadResult, req ReadRequest, budget int, d Dialect) (*ReadResult, error) {
	numbered := req.ShowLineNumbers == nil || *req.ShowLineNumbers
	ranged := req.Offset != nil || req.Limit != nil
	start := 1
	if req.Offset != nil {
		start = *req.Offset
	}
	end := -1 // to the end
	if req.Limit != nil {
		end = start + *req.Limit - 1
	}

	lr := newLineReader(f, readBufSize, maxLineBytes)
	skipped := lr.skip(start - 1)
	var (
		shown     []string
		raw       []string // the lines as bytes, where they differ from shown (not UTF-8)
		toks      []int
		sum       int
		held      int
		stopped   bool // the budget ran out before the window did
		firstLong string
		firstCut  bool
		lineNo    = skipped
	)
	for end < 0 || lineNo < end {
		b, cut, ok := lr.next()
		if !ok {
			break
		}
		lineNo++
		s := jsString(b)
		tk := lineTokens(lineNo, s, numbered)
		if sum+tk > budget || held+len(s) > maxWindowBytes || cut {
			stopped = true
			if len(shown) == 0 {
				firstLong, firstCut = s, cut
			}
			break
		}
		shown = append(shown, s)
		if r := string(b); r != s {
			raw = append(raw, r)
		} else {
			raw = append(raw, s)
		}
		toks = append(toks, tk)
		sum += tk
		held += len(s)
	}
	// lineNo counts every line consumed, the one that did not fit included.
	total := lineNo + lr.count()
	if lr.err != nil {
		return nil, errs.FromOS("read", req.Path, lr.err, false)
	}
	res.Kind = ReadText
	res.TotalLines = &total

	if total > 0 && start > total {
		res.Kind = ReadPastEnd
		res.text = fmt.Sprintf("%s (%d bytes): offset %d is past the end of the file, which has %d %s (valid offsets 1-%d). The file has been fully read; stop paginating.",
			res.Path, st.Size, start, total, wording.Plural(total, "line", "lines"), total)
		return res, nil
	}
	if total == 0 && start > 1 {
		res.Kind = ReadPastEnd
		res.text = fmt.Sprintf("%s (%d bytes): offset %d is past the end of the file, which is empty. The file has been fully read; stop paginating.",
			res.Path, st.Size, start)
		return res, nil
	}
	if total == 0 {
		// An empty file read from its start, ranged or not, has one
		// answer: its header and nothing (no "lines 0-0 of 0" window).
		ranged = false
	}

	header := func(last int) string {
		if !ranged {
			return fmt.Sprintf("%s (%d bytes)", res.Path, st.Size)
		}
		if last < start {
			return fmt.Sprintf("%s (lines 0-0 of %d, %d bytes)", res.Path, total, st.Size)
		}
		return fmt.Sprintf("%s (lines %d-%d of %d, %d bytes)", res.Path, start, last, total, st.Size)
	}
	// Drop lines from the end until header and lines fit the budget.
	for len(shown) > 0 && tokens.Estimate(header(start+len(shown)-1))+sum > budget {
		if len(shown) == 1 {
			firstLong, firstCut = shown[0], false
		}
		sum -= toks[len(toks)-1]
		shown, raw, toks = shown[:len(shown)-1], raw[:len(raw)-1], toks[:len(toks)-1]
		stopped = true
	}
	last := start + len(shown) - 1

	var sb strings.Builder
	h := header(last)
	sb.WriteString(h)
	sb.WriteByte('\n')
	width := gutterWidth(last)
	for i, s := range shown {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if numbered {
			gutter(&sb, start+i, width, s)
		} else {
			sb.WriteString(s)
		}
	}
	content := Bytes(strings.Join(raw, "\n"))
	res.StartLine, res.EndLine = start, last
	if len(shown) == 0 {
		res.StartLine, res.EndLine = 0, 0
	}
	if !stopped {
		res.Content = &content
		res.text = sb.String()
		return res, nil
	}

	res.Truncated = true
	if len(shown) == 0 {
		// Not even one whole line fits: show the head of the first line.
		sb.Reset()
		h = header(start)
		sb.WriteString(h)
		sb.WriteByte('\n')
		if numbered {
			gutter(&sb, start, gutterWidth(start), firstLong)
		} else {
			sb.WriteString(firstLong)
		}
		// One wording, with the size: Mastra's "showing first ~B of ~T
		// tokens", where T is the whole output's estimate ("more than"
		// when the line was too long to hold in full).
		whole := sb.String()
		of := fmt.Sprintf("~%d", tokens.Estimate(whole))
		if firstCut {
			of = "more than " + of
		}
		next := "continue with " + d.setting("offset", "offset", start+1)
		res.NextOffset = start + 1
		if start+1 > total {
			next, res.NextOffset = "it is the last line", 0
		}
		res.text = tokens.HeadTokens(whole, budget) + fmt.Sprintf(
			"\n[output truncated: line %d alone exceeds the output budget: showing first ~%d of %s tokens; %s]", start, budget, of, next)
		return res, nil
	}
	res.Content = &content
	res.NextOffset = last + 1
	sb.WriteString(fmt.Sprintf("\n[output truncated: showing lines %d-%d of %d; continue with %s]", start, last, total, d.setting("offset", "offset", last+1)))
	res.text = sb.String()
	return res, nil
}

// lineTokens is the token estimate of one shown line. The number and arrow
// touch the line's first word, so they are counted together; the padding
// and the newline between lines are whitespace and count nothing.
func lineTokens(n int, s string, numbered bool) int {
	if !numbered {
		return tokens.Estimate(s)
	}
	return tokens.Estimate(strconv.Itoa(n) + "→" + s)
}
