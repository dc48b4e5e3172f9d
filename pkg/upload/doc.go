// Package upload holds the pure rules of Mastra's FileUploadProcessor, as
// `ws upload` applies them: the upload path (sanitised directory, content
// hash, safe extension), display names and the notes that replace a file in
// the prompt, the file info handed to filters, include/exclude patterns and
// size limits, the inline data forms (base64, data URLs) with their size and
// decoding rules, message lists as function-calling shims hold them, and the
// error codes with their messages and tripwire metadata.
//
// Tx is the one part that touches the filesystem: the transaction that
// stages one call's files in its upload directory, places them under their
// content hash, and keeps them or takes them back. Nothing here runs
// commands or decides which files go: pkg/workspace applies the filter and
// the limits and calls Tx.
package upload
