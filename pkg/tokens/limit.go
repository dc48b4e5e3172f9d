package tokens

import (
	"math"
	"strconv"
	"strings"
)

// Defaults used by Mastra's workspace tools.
const (
	// DefaultMaxOutputTokens is the default token budget of a tool's output.
	DefaultMaxOutputTokens = 2000
	// DefaultTailLines is the default number of lines TailLines keeps when a
	// tool is not told otherwise.
	DefaultTailLines = 200
)

// LimitHead keeps the first limit tokens of text when text is estimated at
// more than limit tokens (Mastra's applyTokenLimit with from = "end"). The
// kept part is followed by the notice
//
//	\n[output truncated: showing first ~<limit> of ~<total> tokens]
//
// The cut may fall in the middle of a line or a word. truncated reports
// whether text was cut, and total is Estimate(text). Empty text and text
// within the budget come back unchanged.
func LimitHead(text string, limit int) (out string, truncated bool, total int) {
	total, over := overBudget(text, limit)
	if !over {
		return text, false, total
	}
	kept := slice(text, 0, limit, total)
	return kept + "\n[output truncated: showing first ~" + strconv.Itoa(limit) +
		" of ~" + strconv.Itoa(total) + " tokens]", true, total
}

// overBudget reports whether text is estimated at more than limit tokens,
// and the estimate; empty text is estimated at 0 and never over.
func overBudget(text string, limit int) (total int, over bool) {
	if text == "" {
		return 0, false
	}
	total = Estimate(text)
	return total, total > limit
}

// LimitTail is the keep-tail counterpart of LimitHead (applyTokenLimit with
// from = "start"): it keeps the last limit tokens of text, preceded by the
// notice
//
//	[output truncated: showing last ~<limit> of ~<total> tokens]\n
//
// Like the original, a limit of 0 on non-empty text keeps the whole text
// after the notice (JavaScript's slice(-0) is slice(0)).
func LimitTail(text string, limit int) (out string, truncated bool, total int) {
	total, over := overBudget(text, limit)
	if !over {
		return text, false, total
	}
	start := -limit
	if limit == math.MinInt {
		start = End // -MinInt overflows; any huge start keeps nothing.
	}
	kept := slice(text, start, End, total)
	return "[output truncated: showing last ~" + strconv.Itoa(limit) +
		" of ~" + strconv.Itoa(total) + " tokens]\n" + kept, true, total
}

// Sandwich keeps the head and the tail of text when text is estimated at
// more than limit tokens (Mastra's applyTokenLimitSandwich). The head gets
// floor(limit*0.1) tokens and the tail the rest; between them goes the notice
//
//	[...output truncated — showing first ~<head> + last ~<tail> of ~<total> tokens...]
//
// (with an em dash, U+2014). The head, the notice and the tail are joined by
// newlines, an empty head or tail being left out. Empty text and text within
// the budget come back unchanged.
func Sandwich(text string, limit int) string { return SandwichHint(text, limit, "") }

// SandwichHint is Sandwich whose notice, when it cuts, also says hint
// (how to see what it left out): "[...output truncated — … tokens; hint...]".
func SandwichHint(text string, limit int, hint string) string {
	total, over := overBudget(text, limit)
	if !over {
		return text
	}
	headBudget := int(math.Floor(float64(limit) * 0.1))
	tailBudget := limit - headBudget
	var head, tail string
	if headBudget > 0 {
		head = slice(text, 0, headBudget, total)
	}
	if tailBudget > 0 {
		tail = slice(text, -tailBudget, End, total)
	}
	notice := "[...output truncated \u2014 showing first ~" + strconv.Itoa(headBudget) +
		" + last ~" + strconv.Itoa(tailBudget) + " of ~" + strconv.Itoa(total) + " tokens"
	if hint != "" {
		notice += "; " + hint
	}
	notice += "...]"
	var sb strings.Builder
	sb.Grow(len(head) + len(notice) + len(tail) + 2)
	if head != "" {
		sb.WriteString(head)
		sb.WriteByte('\n')
	}
	sb.WriteString(notice)
	if tail != "" {
		sb.WriteByte('\n')
		sb.WriteString(tail)
	}
	return sb.String()
}

// TailLines keeps the last n lines of text, like tail -n (Mastra's
// applyTail). A negative n counts as -n; n == 0 means no limit. A single
// trailing newline does not start a line of its own and is kept. When lines
// are dropped, the result starts with
//
//	[showing last <n> of <count> lines]\n
//
// Callers with no explicit limit should pass DefaultTailLines.
func TailLines(text string, n int) string {
	if text == "" || n == 0 {
		return text
	}
	if n < 0 {
		n = -n
		if n < 0 { // math.MinInt: no text has that many lines
			return text
		}
	}
	body := strings.TrimSuffix(text, "\n")
	count := strings.Count(body, "\n") + 1
	if count <= n {
		return text
	}
	// count > n, so body holds at least n newlines.
	cut := len(body)
	for range n {
		cut = strings.LastIndexByte(body[:cut], '\n')
	}
	return TailNotice(n, count) + text[cut+1:]
}

// TailNotice is the line TailLines puts before the last n of count lines,
// for a caller that cut them itself (a log read from its end).
func TailNotice(n, count int) string {
	return "[showing last " + strconv.Itoa(n) + " of " + strconv.Itoa(count) + " lines]\n"
}
