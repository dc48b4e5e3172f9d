package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// MaxDepth is how deeply JSON arguments may nest (objects and arrays).
// Tool arguments nest three levels at most; the bound keeps a hostile input
// (a million opening brackets) from costing more than a scan.
const MaxDepth = 512

// MaxArgsBytes is the largest JSON arguments a call may carry. Content
// bigger than this belongs in a file: `ws write PATH < file` streams it.
const MaxArgsBytes = 64 << 20

// CheckArgs refuses, within one pass over the bytes, JSON arguments that are
// larger than MaxArgsBytes or nest deeper than MaxDepth: Mastra's validation
// failure for tool id, with a bounded echo of what was given. It refuses
// arguments that are not UTF-8 too, as JSON text must be: decoding would
// turn each stray byte into U+FFFD, and a write would store those in place
// of the bytes sent. It does not check that raw is JSON; the validator does
// that.
func CheckArgs(id string, raw []byte) error {
	if len(raw) > MaxArgsBytes {
		return validationError(id, []string{fmt.Sprintf("- root: Too big: arguments over %d bytes are not accepted", MaxArgsBytes)}, rawEcho(raw))
	}
	if DeeperThan(raw, MaxDepth) {
		return validationError(id, []string{fmt.Sprintf("- root: Too deep: the arguments nest more than %d levels", MaxDepth)}, rawEcho(raw))
	}
	if !utf8.Valid(raw) {
		return errs.BadJSONArgs(id, fmt.Errorf("not valid UTF-8 at byte offset %d (JSON text must be UTF-8)", invalidUTF8At(raw)))
	}
	return nil
}

// invalidUTF8At is the offset of the first byte of raw that is not part
// of valid UTF-8 (len(raw) when there is none).
func invalidUTF8At(raw []byte) int {
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(raw)
}

// DeeperThan reports whether the JSON text raw nests (objects and arrays)
// more than limit levels. Brackets inside strings don't count, and the
// scan stops at the first level past limit.
func DeeperThan(raw []byte, limit int) bool {
	return jsonenc.Nest(raw, 0, func(depth int) bool { return depth <= limit }) < len(raw)
}

// echoBytes is how much of an input the echo of a failed call looks at:
// more than the 200 UTF-16 code units truncateForLog keeps, since each of
// those takes at most three bytes.
const echoBytes = 1024

// rawEcho is the echo of arguments too big or too deep to decode: the
// start of the text as given.
func rawEcho(raw []byte) string {
	if len(raw) > echoBytes {
		raw = raw[:echoBytes]
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}
