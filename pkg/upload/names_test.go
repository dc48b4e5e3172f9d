package upload

import (
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/media"
)

func TestDirectory(t *testing.T) {
	for _, tc := range []struct{ thread, resource, want string }{
		// The thread id, else the resource id, else "shared".
		{"", "", "shared"}, {"t1", "r1", "t1"}, {"", "r1", "r1"},
		// Path syntax does not survive; an id with nothing left is "shared".
		{"../../etc", "", "etc"}, {"../../outside; rm -rf ~", "", "outside_rm_-rf"}, {"..", "", "shared"}, {"/", "", "shared"},
		// Other characters and runs of dots become "_", runs of "_" one; the ends are stripped.
		{"support ticket #42", "", "support_ticket_42"}, {"a...b..c.d", "", "a_b_c.d"}, {"-._x_.-", "", "x"},
		// NFKD first: accents go, compatibility forms become letters and digits.
		{"Crème Brûlée", "", "Creme_Brulee"}, {"ﬁle①", "", "file1"}, {"日本語", "", "shared"},
		{"a👍b", "", "a_b"}, // two UTF-16 code units, one "_" after collapsing
		// At most 100 characters, cut after stripping, as Mastra does.
		{strings.Repeat("x", 300), "", strings.Repeat("x", 100)}, {strings.Repeat("y", 99) + "_z", "", strings.Repeat("y", 99) + "_"},
	} {
		if got := Directory(tc.thread, tc.resource); got != tc.want {
			t.Errorf("Directory(%q, %q) = %q, want %q", tc.thread, tc.resource, got, tc.want)
		}
	}
}

func TestSafeExtension(t *testing.T) {
	for _, tc := range []struct{ name, mime, want string }{
		// The name's last extension, lower-cased.
		{"notes.txt", "", "txt"}, {"résumé été.PDF", "", "pdf"}, {"archive.tar.gz", "", "gz"}, {`..\..\windows\system32\config.sys`, "", "sys"},
		// Only its letters and digits, at most 16.
		{"notes.t$x t", "", "txt"}, {"; rm -rf ~ #.sh", "", "sh"}, {"x.ABCDEFGHIJKLMNOPQRSTUVWXYZ", "", "abcdefghijklmnop"},
		// Names without one.
		{"../../etc/passwd", "", ""}, {".env", "", ""}, {"Makefile", "", ""}, {"...", "", ""},
		// Without a name (nothing printable is none), the MIME type's.
		{"", "image/png", "png"}, {"", "TEXT/PLAIN; charset=utf-8", "txt"}, {"", "application/x-unknown", ""}, {"\x1b[31m\x07", "application/pdf", "pdf"},
		// With one, the name wins, even without an extension.
		{"photo.png", "image/jpeg", "png"}, {"noext", "image/png", ""},
	} {
		if got := SafeExtension(tc.name, tc.mime); got != tc.want {
			t.Errorf("SafeExtension(%q, %q) = %q, want %q", tc.name, tc.mime, got, tc.want)
		}
	}
}

func TestExtensionOfAndMIME(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"a.TXT", "txt"}, {"dir.d/file", ""}, {`c:\x.y\z.Q`, "q"}, {".hidden", ""}, {"x.", ""}, {"", ""},
	} {
		if got := ExtensionOf(tc.name); got != tc.want {
			t.Errorf("ExtensionOf(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Text/Plain; charset=utf-8", "text/plain"}, {"\u00a0image/PNG ", "image/png"}, {"", ""},
	} {
		if got := media.Normalize(tc.in); got != tc.want {
			t.Errorf("media.Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"", "unnamed file"},
		{"\x1b[2J\x1b[31mred\x1b[0m.txt", "red.txt"},
		{"line\nbreak\r\x7f\u0085.txt", "linebreak.txt"},
		{"\x00\x01", "unnamed file"},
		{long, long[:400]}, // 200 UTF-16 code units
		{strings.Repeat("👍", 101), strings.Repeat("👍", 100)},
		{"bad\xffname", "bad\ufffdname"},
	} {
		if got := DisplayName(tc.in); got != tc.want {
			t.Errorf("DisplayName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Describe(""); got != "An unnamed file" {
		t.Errorf("Describe(\"\") = %q", got)
	}
	if got := Describe("a\nb"); got != `File "ab"` {
		t.Errorf("Describe = %q", got)
	}
}

func TestNotes(t *testing.T) {
	got := UploadedNote("/w/uploads/shared/abc.pdf", "r.pdf", "Application/PDF; x=y", 12)
	want := "[File uploaded to the sandbox]\npath: /w/uploads/shared/abc.pdf\nname: r.pdf\ntype: application/pdf\nsize: 12 bytes"
	if got != want {
		t.Errorf("UploadedNote = %q", got)
	}
	if got := RejectedNote("", ""); got != "[File not uploaded]\nname: unnamed file\nreason: not uploaded" {
		t.Errorf("RejectedNote = %q", got)
	}
	if got := RelPath("shared", "ab", ""); got != "uploads/shared/ab" {
		t.Errorf("RelPath = %q", got)
	}
}
