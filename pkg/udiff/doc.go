// Package udiff writes unified diffs, the format of `diff -u` and `git diff`,
// between two byte slices.
//
// The diff is line based. A line is everything up to and including its
// "\n"; a "\r" before it is part of the line's bytes and is printed as it is
// (a CRLF file shows CRLF lines, and a line whose ending changed from CRLF to
// LF shows as changed). A last line without "\n" is followed by the marker
// `\ No newline at end of file`, as GNU diff does.
//
// Large inputs are cheap when they are mostly equal: the common prefix and
// suffix are trimmed byte-wise before any line is split, so a one-line change
// in a 50 MB file costs a few linear scans. The middle is diffed with Myers'
// algorithm, split first on lines that are unique on both sides (patience
// diff) when it is large; a middle that is large and has nothing in common is
// shown as one replaced block rather than searched exhaustively.
package udiff
