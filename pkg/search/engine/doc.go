// Package engine keeps a workspace's search index in line with the
// workspace: it is the part of search that touches the files and the
// embedder, on top of package search's index format and scoring.
//
// An [Engine] owns the index file in the state directory (opened, or
// changed under the store's lock, a damaged file set aside and rebuilt),
// indexes the files the autoIndexPaths name (a long file becomes
// line-based chunks, as in Mastra), reads again the indexed files whose
// size or mtime changed and drops the ones that are gone before a query
// sees the index (SPEC 16b), and keeps the vector store of each document's
// embedding in line with the index for vector and hybrid search. Files are
// reached only through the path chokepoint ([Files], which
// pkg/internal/fsroot's FS satisfies).
//
// Failures come back as coded errors of pkg/errs, made where the cause is
// known (a damaged or too new index, the state directory, the embedder),
// like those of pkg/grep; the workspace's tool methods pass them on.
package engine
