// Package upload holds the pure rules of Mastra's FileUploadProcessor, as
// `ws upload` applies them: the upload path (sanitised directory, content
// hash, safe extension), display names and the notes that replace a file in
// the prompt, the file info handed to filters, include/exclude patterns and
// size limits, the inline data forms (base64, data URLs) with their size and
// decoding rules, message lists as function-calling shims hold them, and the
// error codes with their messages and tripwire metadata.
//
// Uploader is the processor itself: it applies the policy (include and
// exclude patterns, the filter command, size limits or the size command) to
// the files of a call, in either mode (sources handed on the command line,
// or a message list whose last user message is the current turn), writes
// the ones that go with a Tx, and gives each file's note. It runs helper
// commands only through the CommandFunc it is given; pkg/workspace builds
// it from the config, runs the commands in the workspace, and gives its
// failures their coded form.
//
// Tx is the part that touches the filesystem: the transaction that stages
// one call's files in its upload directory, places them under their
// content hash, and keeps them or takes them back.
package upload
