package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/wstools/ws/pkg/js"
)

// TokenizeOptions are the settings of Mastra's tokenize step (its
// bm25.tokenize config). Options left nil take Mastra's defaults: lower-case,
// punctuation removed, tokens of at least two UTF-16 code units, the English
// stopwords, split on runs of whitespace.
type TokenizeOptions struct {
	Lowercase         *bool
	RemovePunctuation *bool
	// MinLength is the shortest token kept, in UTF-16 code units.
	MinLength *float64
	// Stopwords replace the default list; an empty list drops none.
	Stopwords []string
	// SplitPattern is the source of an ECMAScript regular expression (no
	// flags) that separates tokens, as JavaScript's String.prototype.split
	// uses it: text captured by its groups becomes tokens too.
	SplitPattern *string
}

// Tokenizer turns text into search terms. A nil *Tokenizer is Mastra's
// default tokenizer.
type Tokenizer struct {
	lower, punct bool
	minLen       float64
	stop         map[string]bool
	split        *regexp2.Regexp
	fp           uint32
}

// NewTokenizer builds the tokenizer of o; the error is a split pattern that
// does not compile. Options equal to the defaults give the default (nil)
// tokenizer, so an index built with either is the same.
func NewTokenizer(o TokenizeOptions) (*Tokenizer, error) {
	t := &Tokenizer{lower: true, punct: true, minLen: minTokenUnits, stop: stopwords}
	if o.Lowercase != nil {
		t.lower = *o.Lowercase
	}
	if o.RemovePunctuation != nil {
		t.punct = *o.RemovePunctuation
	}
	if o.MinLength != nil {
		t.minLen = *o.MinLength
	}
	custom := o.Stopwords != nil && !sameWords(o.Stopwords, stopwords)
	if custom {
		t.stop = make(map[string]bool, len(o.Stopwords))
		for _, w := range o.Stopwords {
			t.stop[w] = true
		}
	}
	if o.SplitPattern != nil {
		re, err := regexp2.Compile(*o.SplitPattern, regexp2.ECMAScript)
		if err != nil {
			return nil, fmt.Errorf("not a valid regular expression: %q: %v", *o.SplitPattern, err)
		}
		re.MatchTimeout = 5 * time.Second
		t.split = re
	}
	if t.lower && t.punct && t.minLen == minTokenUnits && !custom && t.split == nil {
		return nil, nil
	}
	// The fingerprint names the options in the index file, so that an index
	// built with other options is built again rather than misread.
	var sb strings.Builder
	fmt.Fprintf(&sb, "lower=%t punct=%t min=%x", t.lower, t.punct, math.Float64bits(t.minLen))
	if t.split != nil {
		fmt.Fprintf(&sb, " split=%q", *o.SplitPattern)
	}
	if custom {
		words := make([]string, 0, len(t.stop))
		for w := range t.stop {
			words = append(words, w)
		}
		sort.Strings(words)
		sb.WriteString(" stop=")
		for _, w := range words {
			var n [4]byte
			binary.LittleEndian.PutUint32(n[:], uint32(len(w)))
			sb.Write(n[:])
			sb.WriteString(w)
		}
	}
	t.fp = crc32.Checksum([]byte(sb.String()), crcTable())
	if t.fp == 0 {
		t.fp = 1 // 0 is the default tokenizer's
	}
	return t, nil
}

func sameWords(list []string, set map[string]bool) bool {
	seen := map[string]bool{}
	for _, w := range list {
		if !set[w] {
			return false
		}
		seen[w] = true
	}
	return len(seen) == len(set)
}

// Fingerprint identifies the tokenizer's options; 0 is the default's.
func (t *Tokenizer) Fingerprint() uint32 {
	if t == nil {
		return 0
	}
	return t.fp
}

// Tokenize splits text into search terms.
func (t *Tokenizer) Tokenize(text string) []string {
	var out []string
	t.each(text, func(tok string) { out = append(out, tok) })
	return out
}

// each calls f with every token of text, in order.
func (t *Tokenizer) each(text string, f func(string)) {
	if t == nil {
		eachToken(text, stopwords, minTokenUnits, f)
		return
	}
	if t.lower && t.punct && t.split == nil && t.minLen > 0 {
		// The default pipeline with another length or stopword list: no
		// empty token can survive, so the one-pass tokenizer does it.
		eachToken(text, t.stop, t.minLen, f)
		return
	}
	if !utf8.ValidString(text) {
		text = js.DecodeUTF8([]byte(text))
	}
	if t.lower {
		text = LowerJS(text)
	}
	if t.punct {
		text = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || js.IsSpace(r) {
				return r
			}
			return ' '
		}, text)
	}
	keep := func(tok string) {
		if float64(js.UTF16Len(tok)) < t.minLen || t.stop[tok] {
			return
		}
		f(tok)
	}
	if t.split == nil {
		splitSpace(text, keep)
		return
	}
	t.splitRegexp(text, keep)
}

// splitSpace is text.split(/\s+/): empty pieces at the ends are kept.
func splitSpace(text string, f func(string)) {
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !js.IsSpace(r) {
			i += size
			continue
		}
		f(text[start:i])
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if !js.IsSpace(r) {
				break
			}
			i += size
		}
		start = i
	}
	f(text[start:])
}

// splitRegexp is JavaScript's text.split(re) (ECMA-262 @@split): at each
// position the first match that does not end where the last piece began
// cuts the text, and the groups it captured are pieces too. Positions are
// code points here, which differs from JavaScript only for a pattern that
// can cut a character outside the BMP in two.
func (t *Tokenizer) splitRegexp(text string, f func(string)) {
	runes := []rune(text)
	size := len(runes)
	if size == 0 {
		if m, err := t.split.FindRunesMatch(runes); err == nil && m != nil {
			return
		}
		f("")
		return
	}
	p := 0
	for q := p; q < size; {
		m, err := t.split.FindRunesMatchStartingAt(runes, q)
		if err != nil || m == nil || m.RuneIndex >= size {
			break
		}
		e := min(m.RuneIndex+m.RuneLength, size)
		if e == p {
			q = m.RuneIndex + 1
			continue
		}
		f(string(runes[p:m.RuneIndex]))
		for _, g := range m.Groups()[1:] {
			if len(g.Captures) > 0 {
				f(string(g.Runes()))
			}
		}
		p, q = e, e
	}
	f(string(runes[p:]))
}

// FindLineRange is the package-level FindLineRange with this tokenizer.
func (t *Tokenizer) FindLineRange(content string, queryTerms []string) (LineRange, bool) {
	return findLineRange(t, content, queryTerms)
}
