package upload

import (
	"encoding/base64"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/media"
)

// Kind is what a file part's data string holds.
type Kind int

// The kinds of data string. Only inline data is ever uploaded: ws never
// downloads a URL or asks a provider for a file id.
const (
	KindInline         Kind = iota // raw base64 or a data URL
	KindURL                        // an absolute URL (any scheme) or a protocol-relative one
	KindProviderFileID             // an id starting "file-" (OpenAI's Files API)
)

// Classify tells inline data from links and provider file ids, as Mastra
// does: a data URL first, then a "file-" id, then a URL; anything else is
// raw (base64) data.
func Classify(data string) Kind {
	switch {
	case strings.HasPrefix(data, "data:"):
		return KindInline
	case strings.HasPrefix(data, "file-"):
		return KindProviderFileID
	case hasScheme(data) || len(data) > 2 && strings.HasPrefix(data, "//"):
		return KindURL
	}
	return KindInline
}

// hasScheme reports a URL scheme: a letter, then letters, digits, "+", "-"
// or ".", then ":".
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// Inline is a file's inline data: raw base64, a base64 data URL, or a
// percent-encoded data URL.
type Inline struct {
	content   string // the base64 or percent-encoded text (after the comma of a data URL)
	mime      string // a data URL's type
	percent   bool   // a data URL without ";base64": percent-encoded text
	malformed bool   // a data URL without a comma
}

// ParseInline splits inline data into its parts.
func ParseInline(data string) Inline {
	if !strings.HasPrefix(data, "data:") {
		return Inline{content: data}
	}
	comma := strings.IndexByte(data, ',')
	if comma < 0 {
		return Inline{content: data, percent: true, malformed: true}
	}
	header := data[len("data:"):comma]
	d := Inline{content: data[comma+1:], mime: header}
	if i := strings.IndexByte(header, ';'); i >= 0 {
		d.mime = header[:i]
	}
	d.percent = !(len(header) >= len(";base64") && strings.EqualFold(header[len(header)-len(";base64"):], ";base64"))
	return d
}

// MIMEType is the type a data URL declares, or "".
func (d Inline) MIMEType() string { return d.mime }

// Key is the base64 content without whitespace, so that two parts carrying
// the same file can be matched (a file's name is taken from another part
// with the same content); "" for percent-encoded data.
func (d Inline) Key() string {
	if d.percent {
		return ""
	}
	if strings.IndexFunc(d.content, js.IsSpace) < 0 {
		return d.content
	}
	return strings.Join(js.Fields(d.content), "")
}

// EncodedSize is the decoded size as Mastra reckons it from the encoded
// text, before decoding anything: for base64, three bytes per four
// characters without whitespace and padding; for percent-encoded text, its
// UTF-8 length with each %XX escape counted as one byte. It is exact for
// data that decodes.
func (d Inline) EncodedSize() int64 {
	if d.percent {
		return int64(len(d.content)) - 2*int64(countEscapes(d.content))
	}
	units := int64(0) // UTF-16 code units without whitespace, as JavaScript counts
	last, prev := rune(0), rune(0)
	for _, r := range d.content {
		if js.IsSpace(r) {
			continue
		}
		units++
		if r > 0xffff {
			units++
		}
		prev, last = last, r
	}
	n := units
	if n > 0 && last == '=' {
		n--
		if n > 1 && prev == '=' {
			n--
		}
	}
	return n * 3 >> 2
}

func countEscapes(s string) int {
	n := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2]) {
			n++
			i += 2
		}
	}
	return n
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Check reports whether the data decodes and, if it does, its decoded size.
// Base64 (whitespace ignored) must use the standard or URL-safe alphabet
// with at most two "=" at the end; percent-encoded text must have every "%"
// start an escape, and escapes above 0x7F must form valid UTF-8, as
// JavaScript's decodeURIComponent requires. Nothing is allocated.
func (d Inline) Check() (int64, bool) {
	if d.malformed {
		return 0, false
	}
	if d.percent {
		return checkPercent(d.content)
	}
	n, pad := int64(0), 0
	for _, r := range d.content {
		switch {
		case js.IsSpace(r):
		case r == '=':
			pad++
			if pad > 2 {
				return 0, false
			}
		case pad > 0:
			return 0, false
		case r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '_' || r == '-':
			n++
		default:
			return 0, false
		}
	}
	return n * 3 >> 2, true
}

func checkPercent(s string) (int64, bool) {
	size := int64(0)
	for i := 0; i < len(s); {
		if s[i] != '%' {
			size++
			i++
			continue
		}
		b, ok := escapeAt(s, i)
		if !ok {
			return 0, false
		}
		if b < utf8.RuneSelf {
			size++
			i += 3
			continue
		}
		n := seqLen(b)
		if n == 0 {
			return 0, false
		}
		var seq [4]byte
		for k := 0; k < n; k++ {
			if seq[k], ok = escapeAt(s, i+3*k); !ok {
				return 0, false
			}
		}
		if _, w := utf8.DecodeRune(seq[:n]); w != n { // invalid: overlong, surrogate, too large
			return 0, false
		}
		size += int64(n)
		i += 3 * n
	}
	return size, true
}

func escapeAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' || !isHex(s[i+1]) || !isHex(s[i+2]) {
		return 0, false
	}
	return unhex(s[i+1])<<4 | unhex(s[i+2]), true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// seqLen is the length of the UTF-8 sequence a lead byte starts, 0 for a
// byte that cannot start one.
func seqLen(b byte) int {
	switch {
	case b >= 0xc2 && b <= 0xdf:
		return 2
	case b >= 0xe0 && b <= 0xef:
		return 3
	case b >= 0xf0 && b <= 0xf4:
		return 4
	}
	return 0
}

// Reader streams the decoded bytes of data that passed Check. Base64 is
// decoded as Node.js decodes it: URL-safe characters read as "+" and "/",
// whitespace and padding ignored, a last lone character dropped.
func (d Inline) Reader() io.Reader {
	if d.percent {
		return &percentReader{s: d.content}
	}
	r := &base64Chars{s: d.content}
	r.limit = r.usable()
	return base64.NewDecoder(base64.RawStdEncoding, r)
}

// base64Chars yields the alphabet characters of base64 text, URL-safe ones
// mapped to the standard alphabet, without whitespace or padding, and at
// most limit of them.
type base64Chars struct {
	s     string
	pos   int
	limit int
}

// usable counts the alphabet characters, less a last lone one (one
// character past a multiple of four carries no whole byte).
func (b *base64Chars) usable() int {
	n := 0
	for _, r := range b.s {
		if r != '=' && !js.IsSpace(r) {
			n++
		}
	}
	if n%4 == 1 {
		n--
	}
	return n
}

func (b *base64Chars) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && b.limit > 0 && b.pos < len(b.s) {
		c := b.s[b.pos]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(b.s[b.pos:])
			b.pos += size
			if !js.IsSpace(r) {
				return n, io.ErrUnexpectedEOF // Check refuses such data
			}
			continue
		}
		b.pos++
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f', '=':
			continue
		case '-':
			c = '+'
		case '_':
			c = '/'
		}
		p[n] = c
		n++
		b.limit--
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// percentReader yields the bytes of percent-encoded text that passed Check.
type percentReader struct {
	s   string
	pos int
}

func (r *percentReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.pos < len(r.s) {
		if b, ok := escapeAt(r.s, r.pos); ok {
			p[n] = b
			r.pos += 3
		} else {
			p[n] = r.s[r.pos]
			r.pos++
		}
		n++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// sniffImage names the image type of inline data by its first bytes, or
// returns "" when they are not a known image. The AI SDK does the same for
// image parts sent without a type.
func sniffImage(d Inline) string {
	if _, ok := d.Check(); !ok {
		return ""
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(d.Reader(), head)
	m := media.Sniff(head[:n])
	if strings.HasPrefix(m, "image/") {
		return m
	}
	return ""
}
