package upload

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{"10485760", 10485760, ""},
		{"5MiB", 5 << 20, ""},
		{"5mib", 5 << 20, ""},
		{"5M", 5 << 20, ""},
		{"5MB", 5000000, ""},
		{" 1.5 GiB ", 3 << 29, ""},
		{"0.1KB", 100, ""},
		{"1.0001B", 1, ""},
		{"2k", 2048, ""},
		{"1TB", 1e12, ""},
		{"-1", 0, "not a size"},
		{"5XB", 0, "unknown unit"},
		{"", 0, "not a size"},
		{"1e3", 0, "not a size"},
		{"10000000TiB", 0, "too large"},
	} {
		got, err := ParseSize(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseSize(%q) error = %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestPatternsAndLimits(t *testing.T) {
	pdf := InfoOf(File{Name: "Report.PDF", MIMEType: "application/pdf"})
	png := InfoOf(File{Name: "", MIMEType: "image/png"})
	tgz := InfoOf(File{Name: "a.tar.gz", MIMEType: "application/gzip"})
	for _, tc := range []struct {
		pattern string
		info    FileInfo
		want    bool
	}{
		{"pdf", pdf, true},
		{".PDF", pdf, true},
		{"p*", pdf, true},
		{"application/*", pdf, true},
		{"IMAGE/*", png, true},
		{"image/png", pdf, false},
		{"png", png, false}, // no name, no extension
		{"*", png, true},
		{"*/*", png, true},
		{"gz", tgz, true},
		{"*.pdf", pdf, true}, // a shell glob of names means the extension
		{"*.PDF", pdf, true},
		{"*df", pdf, true},
		{"*df", InfoOf(File{Name: "a.xdf"}), true},
		{"*.gz", tgz, true},
		{"*.pdf", png, false},
	} {
		p, err := ParsePattern(tc.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tc.pattern, err)
		}
		if got := p.Match(tc.info); got != tc.want {
			t.Errorf("%q.Match(%+v) = %v, want %v", tc.pattern, tc.info, got, tc.want)
		}
	}
	// "tar.gz" and "*.tar.gz" could never match (the extension is the last
	// one): they were taken and left every file out.
	for _, bad := range []string{"", " ", ".", "*.", "image/[", "[", "tar.gz", ".tar.gz", "*.tar.gz", "report*.pdf"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("ParsePattern(%q) accepted", bad)
		}
	}
	inc, err := ParsePatterns([]string{"pdf,image/*", "csv"})
	if err != nil || len(inc) != 3 {
		t.Fatalf("ParsePatterns = %v, %v", inc, err)
	}
	exc, _ := ParsePatterns([]string{"image/png"})
	sel := Selector{Include: inc, Exclude: exc}
	if !sel.Accepts(pdf) || sel.Accepts(png) || sel.Accepts(tgz) {
		t.Errorf("selector: pdf %v png %v tgz %v", sel.Accepts(pdf), sel.Accepts(png), sel.Accepts(tgz))
	}
	if !(Selector{}).Accepts(tgz) {
		t.Error("the empty selector refuses")
	}

	l, err := ParseLimits([]string{"image/*=5MiB", "20MiB", "pdf=1KB", "pdf=2KB"})
	if err != nil {
		t.Fatal(err)
	}
	if l.For(png) != 5<<20 || l.For(pdf) != 1000 || l.For(tgz) != 20<<20 {
		t.Errorf("limits: png %d pdf %d tgz %d", l.For(png), l.For(pdf), l.For(tgz))
	}
	if d, _ := ParseLimits(nil); d.For(tgz) != DefaultMaxFileSize || DefaultMaxFileSize != 10485760 {
		t.Errorf("default limit %d", d.For(tgz))
	}
	for _, bad := range []string{"=5MiB", "image/*=", "image/*=-1", "lots"} {
		if _, err := ParseLimits([]string{bad}); err == nil {
			t.Errorf("ParseLimits(%q) accepted", bad)
		}
	}
}

func TestFileInfoJSON(t *testing.T) {
	for _, tc := range []struct {
		f    File
		want string
	}{
		{File{Name: "a.PDF", MIMEType: "Application/PDF"}, `{"fileName":"a.PDF","mimeType":"application/pdf","extension":"pdf"}`},
		{File{MIMEType: "image/png"}, `{"mimeType":"image/png"}`},
		{File{Name: "Makefile", MIMEType: "text/plain"}, `{"fileName":"Makefile","mimeType":"text/plain"}`},
	} {
		b, _ := json.Marshal(InfoOf(tc.f))
		if string(b) != tc.want {
			t.Errorf("InfoOf(%+v) = %s, want %s", tc.f, b, tc.want)
		}
	}
}

func TestFailures(t *testing.T) {
	f := File{Name: "big\n.bin", MIMEType: "Application/Octet-Stream"}
	for _, tc := range []struct {
		fl   *Failure
		msg  string
		meta string
	}{
		{TooLarge(f, 20, 10), `File "big.bin" is 20 bytes, over the 10 byte limit.`,
			`{"processorId":"file-upload","code":"FILE_TOO_LARGE","fileName":"big\n.bin","mimeType":"Application/Octet-Stream","size":20,"maxFileSize":10}`},
		{InvalidFileData(File{MIMEType: "image/png"}), `An unnamed file has inline data that cannot be decoded.`,
			`{"processorId":"file-upload","code":"INVALID_FILE_DATA","mimeType":"image/png"}`},
		{InvalidFilter(f, "maybe"), `filter must return true or false; it did not for File "big.bin".`,
			`{"processorId":"file-upload","code":"INVALID_FILTER","fileName":"big\n.bin","mimeType":"Application/Octet-Stream","cause":"maybe"}`},
		{InvalidMaxFileSize(f, "-1"), `maxFileSize must return a non-negative number of bytes; it did not for File "big.bin".`,
			`{"processorId":"file-upload","code":"INVALID_MAX_FILE_SIZE","fileName":"big\n.bin","mimeType":"Application/Octet-Stream","cause":"-1"}`},
		{UploadFailed("disk full", []string{"/w/uploads/shared/x"}), `Files could not be written to the sandbox.`,
			`{"processorId":"file-upload","code":"UPLOAD_FAILED","cause":"disk full","orphanPaths":["/w/uploads/shared/x"]}`},
		{NoSandbox(), `FileUploadProcessor requires a workspace with a sandbox to upload files to.`,
			`{"processorId":"file-upload","code":"NO_SANDBOX"}`},
		{NoWriteCapability("local"), `Sandbox "local" supports neither writeFiles nor executeCommand, so files cannot be uploaded to it.`,
			`{"processorId":"file-upload","code":"NO_WRITE_CAPABILITY"}`},
	} {
		if tc.fl.Error() != tc.msg {
			t.Errorf("message %q, want %q", tc.fl.Error(), tc.msg)
		}
		b, _ := json.Marshal(tc.fl.ErrorData())
		if string(b) != tc.meta {
			t.Errorf("metadata %s, want %s", b, tc.meta)
		}
	}
	if len(Codes) != 7 {
		t.Errorf("%d codes", len(Codes))
	}
}
