package search

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/js"
)

// Chunking of files indexed from disk (Mastra's splitIntoChunks).
const (
	MaxChunkUnits = 4000 // UTF-16 code units per chunk
	OverlapLines  = 3    // lines shared by neighbouring chunks
)

// Chunk is one piece of a long file.
type Chunk struct {
	Content   string
	StartLine int // 1-based line of the file where the chunk starts
}

// SplitIntoChunks splits text into line-based chunks of at most
// MaxChunkUnits UTF-16 code units, neighbours sharing OverlapLines lines;
// text that fits is one chunk. A single line longer than the budget is cut
// into pieces of the budget (at character boundaries).
func SplitIntoChunks(text string) []Chunk {
	if js.UTF16Len(text) <= MaxChunkUnits {
		return []Chunk{{Content: text, StartLine: 1}}
	}
	lines := strings.Split(text, "\n")
	lens := make([]int, len(lines))
	for i, l := range lines {
		lens[i] = js.UTF16Len(l)
	}
	var chunks []Chunk
	for start := 0; start < len(lines); {
		end, count := start, 0
		for end < len(lines) {
			n := lens[end]
			if end > start {
				n++
			}
			if count+n > MaxChunkUnits && end > start {
				break
			}
			count += n
			end++
		}
		content := strings.Join(lines[start:end], "\n")
		if count <= MaxChunkUnits {
			chunks = append(chunks, Chunk{Content: content, StartLine: start + 1})
		} else {
			for _, piece := range splitUnits(content, MaxChunkUnits) {
				chunks = append(chunks, Chunk{Content: piece, StartLine: start + 1})
			}
		}
		next := end - OverlapLines
		if next <= start {
			next = end
		}
		start = next
	}
	return chunks
}

// splitUnits cuts s into pieces of at most n UTF-16 code units, never
// inside a character.
func splitUnits(s string, n int) []string {
	var out []string
	for s != "" {
		u, i := 0, 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			ru := utf16.RuneLen(r)
			if ru < 0 {
				ru = 1
			}
			if u+ru > n && i > 0 {
				break
			}
			u += ru
			i += size
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
