package upload

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/media"
	"golang.org/x/text/unicode/norm"
)

// Directory names and limits of the upload path rule.
const (
	// UploadsDir is the directory, below the sandbox working directory, that
	// holds every upload.
	UploadsDir = "uploads"
	// SharedDir is the directory used without a thread or resource id, and
	// for an id that sanitises to nothing.
	SharedDir = "shared"

	maxDirectoryLen = 100
	maxExtensionLen = 16
	maxDisplayLen   = 200
	unnamedFile     = "unnamed file"
)

// DefaultMIMEType is the type of a file sent without one.
const DefaultMIMEType = "application/octet-stream"

// extByMIME gives files sent without a name an extension; other types get none.
// It is a list of pairs, which the binary holds as data, not a map, which
// code would build at every start of ws.
var extByMIME = []pair[string]{
	{"application/json", "json"},
	{"application/pdf", "pdf"},
	{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"},
	{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
	{"application/zip", "zip"},
	{"audio/mpeg", "mp3"},
	{"audio/wav", "wav"},
	{"image/gif", "gif"},
	{"image/jpeg", "jpg"},
	{"image/png", "png"},
	{"image/svg+xml", "svg"},
	{"image/webp", "webp"},
	{"text/csv", "csv"},
	{"text/html", "html"},
	{"text/markdown", "md"},
	{"text/plain", "txt"},
	{"video/mp4", "mp4"},
}

// A pair is a key and its value in a short table.
type pair[V any] struct {
	k string
	v V
}

// lookup is the value paired with key in pairs, if any.
func lookup[V any](pairs []pair[V], key string) (V, bool) {
	for _, p := range pairs {
		if p.k == key {
			return p.v, true
		}
	}
	var zero V
	return zero, false
}

var (
	ansiSeq   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]") })
	dotRuns   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.{2,}`) })
	underRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`_+`) })
	edgeJunk  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[._-]+|[._-]+$`) })
)

// Directory is the upload directory of a request: the thread id, else the
// resource id, else "shared", sanitised so that it is one safe path
// component: NFKD-normalised, combining marks U+0300–U+036F removed, every
// UTF-16 code unit outside [A-Za-z0-9._-] replaced by "_", runs of two or
// more dots replaced by "_", runs of "_" collapsed, leading and trailing
// ".", "_" and "-" stripped, cut to 100 characters; an empty result is
// "shared".
func Directory(thread, resource string) string {
	id := thread
	if id == "" {
		id = resource
	}
	if id == "" {
		return SharedDir
	}
	var b strings.Builder
	for _, r := range norm.NFKD.String(id) {
		switch {
		case r >= 0x300 && r <= 0x36f:
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		case r > 0xffff:
			b.WriteString("__") // two UTF-16 code units
		default:
			b.WriteByte('_')
		}
	}
	s := dotRuns().ReplaceAllString(b.String(), "_")
	s = underRuns().ReplaceAllString(s, "_")
	s = edgeJunk().ReplaceAllString(s, "")
	if len(s) > maxDirectoryLen {
		s = s[:maxDirectoryLen]
	}
	if s == "" {
		return SharedDir
	}
	return s
}

// RelPath is a file's upload path relative to the sandbox working
// directory: uploads/<dir>/<sha256 hex>[.<ext>].
func RelPath(dir, hash, ext string) string {
	return UploadsDir + "/" + dir + "/" + FileName(hash, ext)
}

// FileName is the name a file gets in its upload directory.
func FileName(hash, ext string) string {
	if ext == "" {
		return hash
	}
	return hash + "." + ext
}

// ExtensionOf is the lower-cased extension of the last path segment of a
// name ("/" and "\" both separate), without the dot; "" when the name has
// none or its only dot is the first or the last character.
func ExtensionOf(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return ""
	}
	return strings.ToLower(name[dot+1:])
}

// SafeExtension is the extension an uploaded file gets: from its name (only
// a-z and 0-9 kept, at most 16 characters), or, for a file without a name,
// from its MIME type for the common types; otherwise none.
func SafeExtension(name, mimeType string) string {
	readable := stripUnprintable(name)
	if readable == "" {
		ext, _ := lookup(extByMIME, media.Normalize(mimeType))
		return ext
	}
	var b strings.Builder
	for _, r := range ExtensionOf(readable) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > maxExtensionLen {
		s = s[:maxExtensionLen]
	}
	return s
}

// DisplayName is the name shown in notes and messages: the name as sent,
// without ANSI escape sequences or control characters, at most 200 UTF-16
// code units; "unnamed file" when nothing is left. Bytes that are not
// valid UTF-8 become U+FFFD.
func DisplayName(name string) string {
	s := stripUnprintable(name)
	var b strings.Builder
	units := 0
	for _, r := range s {
		n := 1
		if r > 0xffff {
			n = 2
		}
		if units+n > maxDisplayLen {
			break
		}
		units += n
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return unnamedFile
	}
	return b.String()
}

// Describe names a file in error messages: `File "<display name>"`, or
// "An unnamed file" for a file sent without a name.
func Describe(name string) string {
	if name == "" {
		return "An unnamed file"
	}
	return `File "` + DisplayName(name) + `"`
}

func stripUnprintable(s string) string {
	s = ansiSeq().ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if r <= 0x1f || r >= 0x7f && r <= 0x9f {
			return -1
		}
		return r
	}, s)
}

// UploadedNote is the text that replaces an uploaded file in the prompt.
// path is where the file was placed (absolute), size its length in bytes.
func UploadedNote(path, name, mimeType string, size int64) string {
	return "[File uploaded to the sandbox]\npath: " + path + "\nname: " + DisplayName(name) +
		"\ntype: " + media.Normalize(mimeType) + "\nsize: " + strconv.FormatInt(size, 10) + " bytes"
}

// RejectedNote is the text that replaces a file that was not uploaded.
func RejectedNote(name, reason string) string {
	if reason == "" {
		reason = "not uploaded"
	}
	return "[File not uploaded]\nname: " + DisplayName(name) + "\nreason: " + reason
}
