// Package upload holds the pure rules of Mastra's FileUploadProcessor, as
// `ws upload` applies them: the upload path (sanitised directory, content
// hash, safe extension), display names and the notes that replace a file in
// the prompt, the file info handed to filters, include/exclude patterns and
// size limits, the inline data forms (base64, data URLs) with their size and
// decoding rules, message lists as function-calling shims hold them, and the
// error codes with their messages and tripwire metadata.
//
// Nothing here touches the filesystem or runs commands: pkg/workspace does
// the writing.
package upload
