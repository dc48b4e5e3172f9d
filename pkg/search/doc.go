// Package search is ws's keyword search: a Go port of the BM25 engine of
// Mastra's workspace (search/bm25.ts and search/search-engine.ts in
// @mastra/core 1.71.0), with the index kept on disk instead of in memory.
//
// The scoring is Mastra's to the bit: the same tokenizer (JavaScript
// lower-casing, \p{L}\p{N}_ tokens of at least two UTF-16 code units, the
// same stopwords), k1 = 1.5, b = 0.75, the Robertson–Spärck Jones idf, and
// the same order for equal scores (the first query term that reaches a
// document, then the order in which documents were indexed). Those are the
// defaults: [Params] and [TokenizeOptions] take Mastra's bm25 settings.
//
// An index lives in one file (see [Encode] for the layout): a table of
// documents in indexing order, a sorted term dictionary and the postings,
// all fixed-width records over one string blob. A query opens the file with
// mmap and touches only the postings of its terms and the documents it
// returns, so it costs the same for ten documents or ten thousand. Changes
// go through [Index]: decode, change, encode, and save atomically
// ([Save] writes a temporary file and renames it), under the lock of
// [Lock] so that concurrent processes never lose each other's changes.
package search
