// Package tokens is a Go port of the token heuristics that Mastra's workspace
// tools use to budget command and file output for a language model.
//
// It reproduces, byte for byte, the behaviour of:
//
//   - tokenx 1.3.0's estimateTokenCount ([Estimate]) and sliceByTokens
//     ([Slice], [HeadTokens], [TailTokens]), including Mastra's repair of
//     surrogate pairs that a cut splits in half;
//   - Mastra's output limiters: keep-head and keep-tail token limits
//     ([LimitHead], [LimitTail]), the head/tail "sandwich" ([Sandwich]) and the
//     line-based tail ([TailLines]);
//   - Mastra's ANSI escape stripping ([StripANSI]).
//
// # JavaScript semantics
//
// The original code works on JavaScript strings, so every length and every
// cut position here is measured in UTF-16 code units, and "whitespace" means
// the JavaScript \s class (which, unlike [unicode.IsSpace], includes U+FEFF and
// excludes U+0085). Go strings are UTF-8; the functions convert positions on
// the fly and never allocate a UTF-16 copy.
//
// A character outside the Basic Multilingual Plane (an emoji, for instance)
// is two code units. When a cut falls between its two halves, the half that
// would be left alone is replaced by U+FFFD, as Mastra does.
//
// # Invalid UTF-8
//
// Nothing panics on invalid UTF-8. Every byte that is not part of a valid
// UTF-8 sequence counts as a U+FFFD of its own (one code unit, one code
// point), the way a Go range loop decodes it. The byte itself is kept: apart
// from the U+FFFD repair described above, the text returned by the slicing
// functions is always a substring of the input. (A JavaScript decoder may
// merge a truncated sequence into a single U+FFFD, so estimates of invalid
// text can differ slightly from those of JavaScript on the decoded string.)
package tokens
