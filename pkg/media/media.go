package media

import (
	"bytes"
	"path"
	"strings"
	"sync"

	"github.com/gabriel-vasile/mimetype"
	"github.com/wstools/ws/pkg/js"
)

// extMIME maps a lower-case extension to the MIME type Mastra gives it; it
// is built on first use.
var extMIME = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, group := range []struct{ mime, exts string }{
		{"text/plain", "txt ini env sas log"}, {"text/html", "html htm"}, {"text/css", "css"},
		{"text/csv", "csv"}, {"text/markdown", "md mdx"}, {"application/javascript", "js mjs jsx"},
		{"application/typescript", "ts tsx"}, {"application/json", "json"}, {"application/xml", "xml"},
		{"text/yaml", "yaml yml"}, {"text/x-python", "py"}, {"text/x-ruby", "rb"}, {"text/x-go", "go"},
		{"text/x-rust", "rs"}, {"text/x-java", "java"}, {"text/x-c", "c h"}, {"text/x-c++", "cpp hpp"},
		{"text/x-sh", "sh bash zsh"}, {"text/toml", "toml"}, {"text/x-sql", "sql"},
		{"application/graphql", "graphql gql"}, {"text/x-vue", "vue"}, {"text/x-svelte", "svelte"},
		{"text/x-scss", "scss"}, {"text/x-sass", "sass"}, {"text/x-less", "less"},
		{"application/x-php", "php"}, {"text/x-swift", "swift"}, {"text/x-kotlin", "kt kts"},
		{"application/dart", "dart"}, {"text/x-lua", "lua"}, {"text/x-r", "r"},
		{"text/x-terraform", "tf tfvars"}, {"application/jsonl", "jsonl"}, {"image/png", "png"},
		{"image/jpeg", "jpg jpeg"}, {"image/gif", "gif"}, {"image/svg+xml", "svg"}, {"image/webp", "webp"},
		{"image/x-icon", "ico"}, {"image/bmp", "bmp"}, {"image/tiff", "tiff tif"}, {"image/heic", "heic"},
		{"image/heif", "heif"}, {"image/avif", "avif"}, {"application/pdf", "pdf"}, {"audio/mpeg", "mp3"},
		{"audio/wav", "wav"}, {"audio/ogg", "ogg"}, {"audio/flac", "flac"}, {"audio/mp4", "m4a"},
		{"audio/aac", "aac"}, {"video/mp4", "mp4"}, {"video/webm", "webm"}, {"video/quicktime", "mov"},
		{"video/x-msvideo", "avi"}, {"video/x-matroska", "mkv"}, {"application/zip", "zip"},
		{"application/x-tar", "tar"}, {"application/gzip", "gz tgz"}, {"application/x-bzip2", "bz2"},
		{"application/x-7z-compressed", "7z"}, {"application/vnd.rar", "rar"},
		{"application/vnd.microsoft.portable-executable", "exe dll"}, {"application/x-sharedlib", "so dylib"},
		{"application/x-binary", "bin dat"}, {"application/x-apple-diskimage", "dmg"},
		{"application/x-iso9660-image", "iso"}, {"application/vnd.debian.binary-package", "deb"},
		{"application/x-rpm", "rpm"}, {"application/msword", "doc"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
		{"application/vnd.ms-excel", "xls"},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"},
		{"application/vnd.ms-powerpoint", "ppt"},
		{"application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"},
		{"font/ttf", "ttf"}, {"font/otf", "otf"}, {"font/woff", "woff"}, {"font/woff2", "woff2"},
		{"application/wasm", "wasm"}, {"application/java-vm", "class"}, {"application/x-python-code", "pyc"},
	} {
		for _, e := range strings.Fields(group.exts) {
			m[e] = group.mime
		}
	}
	return m
})

// ByName returns the MIME type of a file name by its last extension, as
// Mastra's table has it, or "" when the extension is unknown.
func ByName(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return ""
	}
	return extMIME()[ext[1:]]
}

// IsText reports whether a MIME type denotes text.
func IsText(m string) bool {
	m = Normalize(m)
	if strings.HasPrefix(m, "text/") || strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "+xml") {
		return true
	}
	switch m {
	case "application/json", "application/javascript", "application/typescript", "application/xml",
		"application/graphql", "application/x-sh", "application/x-yaml", "application/yaml",
		"application/ld+json", "application/sql", "application/jsonl", "application/x-php",
		"application/dart", "application/x-ndjson", "application/x-subrip":
		return true
	}
	return false
}

// Normalize is a MIME type without parameters, trimmed (JavaScript's trim)
// and in lower case: "Text/Plain; charset=utf-8" is "text/plain".
func Normalize(m string) string {
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = m[:i]
	}
	return strings.ToLower(js.TrimSpace(m))
}

// Sniff is the normalised MIME type the content's first bytes name
// (application/octet-stream when they name none).
func Sniff(head []byte) string { return Normalize(mimetype.Detect(head).String()) }

// SniffLen is how much of a file decides whether it is text.
const SniffLen = 8192

// Kind is what a file's content turned out to be.
type Kind struct {
	Text bool   // readable as text
	MIME string // the type to show and to match against mediaTypes
}

// Classify decides by content, not by name, whether a file is text: a NUL
// byte in the first 8 KiB, or a sniffed binary type, makes it binary. The
// MIME type shown for binary files is the sniffed one where the content
// names itself (PNG, PDF, ZIP …), else the extension's.
func Classify(name string, head []byte) Kind {
	byName := ByName(name)
	sniffed := Sniff(head)
	if bytes.IndexByte(head, 0) < 0 && (IsText(sniffed) || sniffed == "application/octet-stream" && LooksText(head)) {
		m := byName
		if m == "" {
			m = sniffed
		}
		return Kind{Text: true, MIME: m}
	}
	m := sniffed
	if m == "application/octet-stream" || m == "" || m == "text/plain" {
		if byName != "" && !IsText(byName) {
			m = byName
		} else {
			m = "application/octet-stream"
		}
	}
	return Kind{MIME: m}
}

// LooksText accepts content the sniffer could not name but that has no
// control characters other than the usual whitespace and escape.
func LooksText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b && c != '\b' {
			return false
		}
	}
	return true
}

// MatchPatterns reports whether m matches one of the media type patterns
// (`*`, `*/*`, `type/*` or `type/subtype`, case-insensitive).
func MatchPatterns(patterns []string, m string) bool {
	m = Normalize(m)
	typ, _, _ := strings.Cut(m, "/")
	for _, p := range patterns {
		p = strings.ToLower(p)
		switch {
		case p == "*" || p == "*/*":
			return true
		case strings.HasSuffix(p, "/*") && strings.TrimSuffix(p, "/*") == typ:
			return true
		case p == m:
			return true
		}
	}
	return false
}
