// Package media decides what kind of content a file holds: the MIME type
// of a name by Mastra's extension table, the type its first bytes name,
// whether that is text, and MIME normalisation and pattern matching
// (read_file's mediaTypes, upload's include/exclude). One implementation,
// shared by read, grep, search and upload.
package media
