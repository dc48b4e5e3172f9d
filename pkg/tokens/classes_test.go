package tokens

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/js"
)

// The sets below were obtained by testing every BMP code unit against the
// JavaScript patterns (/\s/ and tokenx's case-insensitive language patterns)
// in Node.js; they are hex code points.
const (
	jsSpace   = "9 a b c d 20 a0 1680 2000 2001 2002 2003 2004 2005 2006 2007 2008 2009 200a 2028 2029 202f 205f 3000 feff"
	jsGerman  = "c4 d6 dc df e4 f6 fc 1e9e"
	jsFrench  = "c0 c1 c2 c6 c7 c8 c9 ca cb cd ce cf d1 d3 d4 d9 da db dc e0 e1 e2 e6 e7 e8 e9 ea eb ed ee ef f1 f3 f4 f9 fa fb fc ff 152 153 178"
	jsPolish  = "d3 da dd f3 fa fd 104 105 106 107 10c 10d 10e 10f 118 119 11a 11b 141 142 143 144 147 148 158 159 15a 15b 160 161 164 165 16e 16f 179 17a 17b 17c 17d 17e"
	jsPunct   = "21 23 24 25 26 28 29 2a 2b 2c 2d 2e 2f 3a 3b 3c 3d 3e 3f 40 5b 5c 5d 5e 5f 60 7b 7c 7d 7e"
	maxRuneJS = 0xFFFF
)

func hexSet(t *testing.T, list string) map[rune]bool {
	t.Helper()
	m := map[rune]bool{}
	for _, f := range strings.Fields(list) {
		n, err := strconv.ParseUint(f, 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		m[rune(n)] = true
	}
	return m
}

func TestCharacterClassesMatchJS(t *testing.T) {
	space, punct := hexSet(t, jsSpace), hexSet(t, jsPunct)
	german, french, polish := hexSet(t, jsGerman), hexSet(t, jsFrench), hexSet(t, jsPolish)
	for r := rune(0); r <= maxRuneJS; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		var gotSpace, gotPunct bool
		if r < 0x80 {
			gotSpace = byteClass[r]&bitSpace != 0
			gotPunct = byteClass[r]&bitPunct != 0
		} else {
			gotSpace = js.IsSpace(r)
			lang := langOf(r)
			if want := german[r] || french[r]; (lang&langDense != 0) != want {
				t.Errorf("U+%04X: dense language hint = %v, want %v", r, !want, want)
			}
			if want := polish[r]; (lang&langPolish != 0) != want {
				t.Errorf("U+%04X: Polish language hint = %v, want %v", r, !want, want)
			}
		}
		if gotSpace != space[r] {
			t.Errorf("U+%04X: whitespace = %v, want %v", r, gotSpace, space[r])
		}
		if gotPunct != punct[r] {
			t.Errorf("U+%04X: punctuation = %v, want %v", r, gotPunct, punct[r])
		}
	}
}
