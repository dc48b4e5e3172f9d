// Package editmatch finds where an edit's old_string goes in a file and
// writes new_string there, forgiving the slips models make when they copy
// text (line endings, indentation, read-output gutters, typographic quotes,
// …) while never editing a place that differs in content or that is not
// the only candidate.
//
// Apply tries the exact text first, as Mastra's edit_file does; an exact
// occurrence always wins. When there is none, it runs a cascade of
// fallbacks, from strict to loose (see Fallbacks):
//
//	line-endings         CRLF against LF; a final line ending the file lacks
//	bom                  a byte-order mark at the start of old_string
//	trailing-whitespace  spaces and tabs at line ends
//	indentation          a uniform shift, another width, tabs against spaces
//	gutter               "     12→" or "    12\t" gutters copied from read output
//	escapes              \n and \t typed as two characters (never when the file has them)
//	blank-lines          blank lines missing or extra, inside or at the edges
//	unicode              curly quotes, dashes, ellipsis, NBSP and thin spaces
//	normalization        NFC against NFD
//
// Steps accumulate: a place matched at a step may also differ in every way
// the steps before it allow, and the step reported is the loosest one the
// place needed. Lines are compared through keys that remove exactly these
// differences, so content that differs in any other way never matches.
//
// Uniqueness is judged across all steps together: every place old_string
// matches at any step is a candidate, and more than one is an
// *AmbiguousError, even when one of them matches more strictly. With
// replace_all, the places must all match at the same step. A place whose
// indentation cannot be mapped consistently (old_string's structure is not
// the file's) is refused with a *NotFoundError that says why.
//
// Writing keeps the file's line endings, byte-order mark and final-newline
// state, for exact matches too; a fallback also keeps the indentation
// style: new_string's lines that are unchanged from old_string keep the
// file's bytes, and the others are written with the file's line ending,
// re-indented line by line when the indentation differed so that each
// keeps its depth relative to the block.
//
// The package is pure: it works on bytes, does no I/O, and never splits
// the whole file into lines; a search is a few linear scans of the content.
package editmatch
