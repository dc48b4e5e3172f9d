package upload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/runner"
	"golang.org/x/sys/unix"
)

// patternReader yields n bytes of a pattern that does not repeat at any
// power-of-two period, without holding them.
type patternReader struct{ off, n int64 }

var patternBlock = func() []byte {
	b := make([]byte, 65521) // a prime length
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}()

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	if rest := r.n - r.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	k := 0
	for k < len(p) {
		k += copy(p[k:], patternBlock[(r.off+int64(k))%int64(len(patternBlock)):])
	}
	r.off += int64(k)
	return k, nil
}

func patternSum(n int64) string {
	h := sha256.New()
	io.Copy(h, &patternReader{n: n})
	return hex.EncodeToString(h.Sum(nil))
}

// stdinSource is a source read once, as stdin is.
func stdinSource(name, mime string, r io.Reader) Source {
	return Source{Label: "-", Name: name, MIMEType: mime, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

func fileSource(path string) Source {
	return Source{Label: path, Name: filepath.Base(path), Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

func bytesSource(name, mime, content string) Source {
	return stdinSource(name, mime, strings.NewReader(content))
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// listUploads lists every entry below root/uploads, temporary files too.
func listUploads(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.Walk(filepath.Join(root, "uploads"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != filepath.Join(root, "uploads") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// failureOf is err as a *Failure with the code, or fails the test.
func failureOf(t *testing.T, err error, code string) *Failure {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || f.Code != code {
		t.Fatalf("error %v (%T), want a %s failure", err, err, code)
	}
	return f
}

// newUploader is an Uploader over a new temporary workspace root, with the
// default policy and no helper commands to run.
func newUploader(t *testing.T) (*Uploader, string) {
	t.Helper()
	fsys, root := txRoot(t)
	run := func(context.Context, string, []string, []byte) ([]byte, error) {
		t.Fatal("no command to run")
		return nil, nil
	}
	return &Uploader{FS: fsys, Now: time.Now, Run: run}, root
}

func TestUploaderFilesAndDedupe(t *testing.T) {
	u, root := newUploader(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "big data.bin")
	f, _ := os.Create(src)
	io.Copy(f, &patternReader{n: 3<<20 + 5})
	f.Close()
	res, err := u.Upload(ctx, Request{Files: []Source{fileSource(src), bytesSource("", "", "plain text\n")}})
	must(t, err)
	hash := patternSum(3<<20 + 5)
	real := fsroot.RealpathPartial(root)
	wantPath := filepath.Join(real, "uploads", "shared", hash+".bin")
	want := "[File uploaded to the sandbox]\npath: " + wantPath + "\nname: big data.bin\ntype: application/x-binary\nsize: 3145733 bytes\n\n" +
		"[File uploaded to the sandbox]\npath: " + filepath.Join(real, "uploads/shared", sum("plain text\n")+".txt") + "\nname: unnamed file\ntype: text/plain\nsize: 11 bytes"
	if res.Text() != want {
		t.Fatalf("text:\n%s\nwant:\n%s", res.Text(), want)
	}
	if !res.Files[0].Written || res.Files[0].SHA256 != hash || res.Files[0].RelPath != "uploads/shared/"+hash+".bin" {
		t.Errorf("entry %+v", res.Files[0])
	}
	fi, err := os.Stat(wantPath)
	must(t, err)
	if fi.Mode().Perm() != os.FileMode(0o666&^fsroot.Umask()) || fi.Size() != 3<<20+5 {
		t.Errorf("placed file mode %v size %d", fi.Mode(), fi.Size())
	}

	// The same content again: kept, not rewritten.
	before := fi.ModTime()
	res, err = u.Upload(ctx, Request{Files: []Source{fileSource(src)}})
	must(t, err)
	if res.Files[0].Written {
		t.Error("same content written again")
	}
	if fi, _ := os.Stat(wantPath); !fi.ModTime().Equal(before) {
		t.Error("existing file touched")
	}

	// An existing file of the right size but other content is not trusted.
	must(t, os.WriteFile(wantPath, bytes.Repeat([]byte{'x'}, 3<<20+5), 0o644))
	res, err = u.Upload(ctx, Request{Files: []Source{fileSource(src)}})
	must(t, err)
	if !res.Files[0].Written {
		t.Error("corrupt file trusted")
	}
	got, _ := os.ReadFile(wantPath)
	if h := sha256.Sum256(got); hex.EncodeToString(h[:]) != hash {
		t.Error("corrupt file not replaced")
	}

	// Nor a symlink at the name: it is replaced, its target untouched.
	outside := filepath.Join(t.TempDir(), "target")
	must(t, os.WriteFile(outside, []byte("keep"), 0o644))
	txt := filepath.Join(root, "uploads/shared", sum("plain text\n")+".txt")
	must(t, os.Remove(txt))
	must(t, os.Symlink(outside, txt))
	_, err = u.Upload(ctx, Request{Files: []Source{bytesSource("", "text/plain", "plain text\n")}})
	must(t, err)
	if fi, _ := os.Lstat(txt); !fi.Mode().IsRegular() {
		t.Error("symlink left in place")
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Error("symlink target written")
	}
	if got := listUploads(t, root); len(got) != 3 {
		t.Errorf("uploads: %v", got)
	}
}

func TestUploaderConstantMemory(t *testing.T) {
	u, root := newUploader(t)
	const n = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := u.Upload(context.Background(), Request{MaxSize: []string{"1GiB"}, Files: []Source{stdinSource("x.bin", "", &patternReader{n: n})}})
	must(t, err)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("a %d MiB upload allocated %d MiB", n>>20, alloc>>20)
	}
	if res.Files[0].SHA256 != patternSum(n) {
		t.Error("hash")
	}
	fi, err := os.Stat(filepath.Join(root, res.Files[0].RelPath))
	if err != nil || fi.Size() != n {
		t.Fatalf("placed: %v", err)
	}
}

func TestUploaderStopsBeforeWriting(t *testing.T) {
	u, root := newUploader(t)
	ctx := context.Background()
	// A stream over its limit: found while copying; nothing stays.
	_, err := u.Upload(ctx, Request{MaxSize: []string{"1KiB"}, Files: []Source{
		bytesSource("a.txt", "", "small"),
		stdinSource("big.bin", "", &patternReader{n: 5000}),
	}})
	f := failureOf(t, err, CodeFileTooLarge)
	if err.Error() != `File "big.bin" is 5000 bytes, over the 1024 byte limit.` || *f.Meta.Size != 5000 || *f.Meta.MaxFileSize != 1024 {
		t.Errorf("%v %+v", err, f.Meta)
	}
	if _, err := os.Lstat(filepath.Join(root, "uploads")); !os.IsNotExist(err) {
		t.Errorf("uploads left behind: %v", listUploads(t, root))
	}
	// A regular file over its limit: found before anything is read.
	src := filepath.Join(t.TempDir(), "r.pdf")
	must(t, os.WriteFile(src, make([]byte, 2048), 0o644))
	_, err = u.Upload(ctx, Request{MaxSize: []string{"pdf=2KB", "1MiB"}, Files: []Source{fileSource(src)}})
	if f := failureOf(t, err, CodeFileTooLarge); *f.Meta.MIMEType != "application/pdf" || *f.Meta.MaxFileSize != 2000 {
		t.Errorf("%+v", f.Meta)
	}
}

func TestUploaderFailedCleansUp(t *testing.T) {
	u, root := newUploader(t)
	ctx := context.Background()
	// The second file's name is taken by a directory: its rename fails, and
	// the first file, placed by this call, is removed again.
	must(t, os.MkdirAll(filepath.Join(root, "uploads/shared", sum("two")+".txt", "sub"), 0o755))
	keep := filepath.Join(root, "uploads/shared", sum("old")+".txt")
	must(t, os.WriteFile(keep, []byte("old"), 0o644))
	_, err := u.Upload(ctx, Request{Files: []Source{
		bytesSource("old.txt", "", "old"), bytesSource("one.txt", "", "one"), bytesSource("two.txt", "", "two"),
	}})
	f := failureOf(t, err, CodeUploadFailed)
	if err.Error() != "Files could not be written to the sandbox." || f.Meta.Cause == nil ||
		!strings.HasPrefix(*f.Meta.Cause, "rename uploads/shared/"+sum("two")+".txt: ") || f.Meta.OrphanPaths != nil {
		t.Errorf("%v %+v", err, f.Meta)
	}
	got := listUploads(t, root)
	want := []string{"uploads/shared", "uploads/shared/" + sum("old") + ".txt", "uploads/shared/" + sum("two") + ".txt", "uploads/shared/" + sum("two") + ".txt/sub"}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after cleanup:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// When cleaning up fails too, the placed paths left are reported.
	u.Fault = func(step, name string) error {
		if step == "cleanup" || step == "place" && strings.HasPrefix(name, sum("four")) {
			return unix.EIO
		}
		return nil
	}
	_, err = u.Upload(ctx, Request{Files: []Source{bytesSource("three.txt", "", "three"), bytesSource("four.txt", "", "four")}})
	f = failureOf(t, err, CodeUploadFailed)
	orphan := filepath.Join(fsroot.RealpathPartial(root), "uploads/shared", sum("three")+".txt")
	if len(f.Meta.OrphanPaths) != 1 || f.Meta.OrphanPaths[0] != orphan || *f.Meta.Cause != "rename uploads/shared/"+sum("four")+".txt: input/output error" {
		t.Errorf("%+v", f.Meta)
	}
	data, _ := json.Marshal(f.ErrorData())
	if !strings.Contains(string(data), `"orphanPaths":["`+orphan+`"]`) {
		t.Errorf("metadata %s", data)
	}
	for _, e := range listUploads(t, root) {
		if strings.Contains(e, fsroot.TempPrefix) {
			t.Errorf("temporary file left: %s", e)
		}
	}
}

func TestUploaderDirectory(t *testing.T) {
	u, root := newUploader(t)
	u.Thread = "../../support ticket #42"
	res, err := u.Upload(context.Background(), Request{Resource: "r", Files: []Source{bytesSource("", "application/pdf", "%PDF")}})
	must(t, err)
	if res.Directory != "uploads/support_ticket_42" || res.Files[0].RelPath != "uploads/support_ticket_42/"+sum("%PDF")+".pdf" {
		t.Errorf("%+v", res)
	}
	u.Thread = ""
	res, err = u.Upload(context.Background(), Request{Resource: "user/7", Files: []Source{bytesSource("", "", "x")}})
	must(t, err)
	if res.Directory != "uploads/user_7" {
		t.Errorf("%s", res.Directory)
	}
	// An uploads directory that leads outside the workspace is refused.
	out := t.TempDir()
	must(t, os.RemoveAll(filepath.Join(root, "uploads")))
	must(t, os.Symlink(out, filepath.Join(root, "uploads")))
	_, err = u.Upload(context.Background(), Request{Files: []Source{bytesSource("", "", "x")}})
	if f := failureOf(t, err, CodeUploadFailed); *f.Meta.Cause != "Permission denied: access on uploads/shared" {
		t.Errorf("%+v", f.Meta)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Error("wrote outside the workspace")
	}
}

// TestUploaderChecksFirst: a bad policy or message list is reported before
// a missing sandbox, and a missing sandbox before any file is opened.
func TestUploaderChecksFirst(t *testing.T) {
	opened := false
	src := Source{Label: "x", Open: func() (io.ReadCloser, error) {
		opened = true
		return io.NopCloser(strings.NewReader("x")), nil
	}}
	for _, tc := range []struct {
		name      string
		pol       Policy
		req       Request
		code, msg string
	}{
		{"bad include", Policy{Include: []string{"image/["}}, Request{Files: []Source{src}},
			"", `upload.include: "image/[" is not a valid glob`},
		{"bad --exclude", Policy{}, Request{Exclude: []string{"["}, Files: []Source{src}},
			"", `upload.exclude: "[" is not a valid glob`},
		{"bad --max-size", Policy{MaxSize: []string{"1KiB"}}, Request{MaxSize: []string{"lots"}, Files: []Source{src}},
			"", `upload.maxSize: "lots" is not a size`},
		{"bad messages", Policy{}, Request{Messages: []byte(`{`)}, "", "--messages: "},
		{"messages in an object without a list", Policy{}, Request{Messages: []byte(`{}`)}, "", "--messages: expected a JSON array of messages"},
		{"bug: null messages are no list either", Policy{}, Request{Messages: []byte(" null\n")}, "", "--messages: expected a JSON array of messages"},
		{"no sandbox", Policy{}, Request{Files: []Source{src}}, CodeNoSandbox,
			"FileUploadProcessor requires a workspace with a sandbox to upload files to."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, root := newUploader(t)
			u.Policy, u.SandboxDisabled = tc.pol, true
			_, err := u.Upload(context.Background(), tc.req)
			if tc.code != "" {
				failureOf(t, err, tc.code)
			} else if errs.CodeOf(err) != errs.InvalidArgument {
				t.Fatalf("error %v (%s), want %s", err, errs.CodeOf(err), errs.InvalidArgument)
			}
			if !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("error %q, want it to start %q", err, tc.msg)
			}
			if opened || len(listUploads(t, root)) != 0 {
				t.Errorf("opened %v, wrote %v", opened, listUploads(t, root))
			}
		})
	}
}

func TestUploaderMessages(t *testing.T) {
	u, root := newUploader(t)
	ctx := context.Background()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	doc := func(history, current string) []byte {
		return []byte(`[{"role":"user","content":[{"type":"file","data":"` + history + `","mediaType":"text/plain","filename":"old.txt"}]},` +
			`{"role":"assistant","content":"ok"},` +
			`{"role":"user","content":[{"type":"text","text":"see"},{"type":"file","data":"` + current + `","mediaType":"text/csv","filename":"new.csv"}]}]`)
	}
	res, err := u.Upload(ctx, Request{Messages: doc(b64("history!"), b64("a,b\n"))})
	must(t, err)
	real := fsroot.RealpathPartial(root)
	want := `[{"role":"user","content":[{"type":"text","text":"[File uploaded to the sandbox]\npath: ` + real + `/uploads/shared/` + sum("history!") + `.txt\nname: old.txt\ntype: text/plain\nsize: 8 bytes"}]},` +
		`{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":[{"type":"text","text":"see"},{"type":"text","text":"[File uploaded to the sandbox]\npath: ` + real + `/uploads/shared/` + sum("a,b\n") + `.csv\nname: new.csv\ntype: text/csv\nsize: 4 bytes"}]}]`
	if res.Text() != want || string(res.Messages) != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text(), want)
	}

	// A history file over its limit becomes a note; the turn goes on.
	res, err = u.Upload(ctx, Request{MaxSize: []string{"5"}, Messages: doc(b64("history!"), b64("a,b\n"))})
	must(t, err)
	if !strings.Contains(res.Text(), `"[File not uploaded]\nname: old.txt\nreason: File \"old.txt\" is 8 bytes, over the 5 byte limit."`) ||
		res.Files[0].Status != StatusRejected || res.Files[1].Status != StatusUploaded {
		t.Errorf("%s", res.Text())
	}
	// A history file that can't be decoded too.
	res, err = u.Upload(ctx, Request{Messages: doc("not base64!", b64("a,b\n"))})
	must(t, err)
	if !strings.Contains(res.Text(), `reason: File \"old.txt\" has inline data that cannot be decoded."`) {
		t.Errorf("%s", res.Text())
	}
	// The same in the current turn stops it, and nothing is written.
	must(t, os.RemoveAll(filepath.Join(root, "uploads")))
	_, err = u.Upload(ctx, Request{Messages: doc(b64("history!"), "not base64!")})
	if f := failureOf(t, err, CodeInvalidFileData); *f.Meta.FileName != "new.csv" || *f.Meta.MIMEType != "text/csv" {
		t.Errorf("%+v", f.Meta)
	}
	_, err = u.Upload(ctx, Request{MaxSize: []string{"3"}, Messages: doc(b64("history!"), b64("a,b\n"))})
	failureOf(t, err, CodeFileTooLarge)
	if got := listUploads(t, root); len(got) != 0 {
		t.Errorf("written: %v", got)
	}

	// A sandbox failure stops a turn that has a file ...
	must(t, os.WriteFile(filepath.Join(root, "uploads"), nil, 0o644))
	_, err = u.Upload(ctx, Request{Messages: doc(b64("history!"), b64("a,b\n"))})
	failureOf(t, err, CodeUploadFailed)
	// ... and becomes notes when only the history has files.
	hist := []byte(`[{"role":"user","content":[{"type":"file","data":"` + b64("h") + `","mediaType":"text/plain","filename":"old.txt"}]},{"role":"user","content":"next"}]`)
	res, err = u.Upload(ctx, Request{Messages: hist})
	must(t, err)
	if res.Text() != `[{"role":"user","content":[{"type":"text","text":"[File not uploaded]\nname: old.txt\nreason: Files could not be written to the sandbox."}]},{"role":"user","content":"next"}]` {
		t.Errorf("%s", res.Text())
	}
	// The same bytes under names with other extensions: one copy per path.
	must(t, os.Remove(filepath.Join(root, "uploads")))
	same := []byte(`[{"role":"user","content":[` +
		`{"type":"file","data":"` + b64("x") + `","mediaType":"text/plain","filename":"a.txt"},` +
		`{"type":"file","data":"` + b64("x") + `","mediaType":"text/plain","filename":"b.md"},` +
		`{"type":"file","data":"` + b64("x") + `","mediaType":"text/plain","filename":"c.txt"}]}]`)
	res, err = u.Upload(ctx, Request{Messages: same})
	must(t, err)
	if res.Files[0].RelPath != "uploads/shared/"+sum("x")+".txt" || res.Files[1].RelPath != "uploads/shared/"+sum("x")+".md" ||
		res.Files[2].RelPath != res.Files[0].RelPath || !res.Files[0].Written || !res.Files[1].Written {
		t.Errorf("%+v", res.Files)
	}
	if got := listUploads(t, root); len(got) != 3 {
		t.Errorf("uploads: %v", got)
	}

	// Bad JSON is a usage error.
	if _, err := u.Upload(ctx, Request{Messages: []byte(`{`)}); errs.CodeOf(err) != errs.InvalidArgument {
		t.Errorf("%v", err)
	}
}

func TestUploaderConcurrent(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fsys := fsroot.New(fsroot.Options{Base: root, Contained: true})
			defer fsys.Close()
			u := &Uploader{FS: fsys, Now: time.Now}
			_, err := u.Upload(context.Background(), Request{Files: []Source{stdinSource("x.bin", "", &patternReader{n: 1 << 20})}})
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		must(t, err)
	}
	if got := listUploads(t, root); len(got) != 2 {
		t.Errorf("uploads: %v", got)
	}
}

// answers is a CommandFunc whose commands answer by the file's info: each
// command (by config key) gets the first answer whose key is in the JSON
// it reads, else the "" answer; an answer "!" fails the command.
func answers(t *testing.T, byCommand map[string]map[string]string) CommandFunc {
	return func(_ context.Context, name string, argv []string, stdin []byte) ([]byte, error) {
		if !bytes.HasSuffix(stdin, []byte("}\n")) || bytes.Count(stdin, []byte("\n")) != 1 {
			t.Errorf("%s read %q, want one line of JSON", name, stdin)
		}
		table, ok := byCommand[name]
		if !ok || len(argv) == 0 {
			t.Fatalf("ran %s %q", name, argv)
		}
		answer, matched := table[""], ""
		for key, a := range table {
			if key != "" && bytes.Contains(stdin, []byte(key)) && key > matched {
				answer, matched = a, key
			}
		}
		if answer == "!" {
			return nil, errors.New("it failed")
		}
		return []byte(answer + "\n"), nil
	}
}

func TestUploaderCommands(t *testing.T) {
	const filter, sizer = "upload.filterCommand", "upload.maxSizeCommand"
	byPDF := map[string]string{`"extension":"pdf"`: "true", "": "false"}
	long := strings.Repeat("x", 250)
	for _, tc := range []struct {
		name     string
		filter   map[string]string // answers of filterCommand; nil: none configured
		sizer    map[string]string // answers of maxSizeCommand; nil: none configured
		maxSize  []string          // the request's MaxSize
		status   []string          // of a.pdf and b.png, when the call succeeds
		code     string            // else the failure's
		cause    string
		fileName string // the failure's file
	}{
		{name: "filter answers", filter: byPDF, status: []string{StatusUploaded, StatusSkipped}},
		{name: "filter refuses all", filter: map[string]string{"": "false"}, status: []string{StatusSkipped, StatusSkipped}},
		{name: "filter says yes", filter: map[string]string{"": "yes"}, code: CodeInvalidFilter, cause: "yes", fileName: "a.pdf"},
		{name: "filter is silent", filter: map[string]string{"": ""}, code: CodeInvalidFilter, cause: "(no answer)", fileName: "a.pdf"},
		{name: "filter rambles", filter: map[string]string{"": long}, code: CodeInvalidFilter, cause: long[:200] + "…", fileName: "a.pdf"},
		{name: "filter fails on the second", filter: map[string]string{"png": "!", "": "true"}, code: CodeInvalidFilter, cause: "it failed", fileName: "b.png"},
		{name: "size by type", sizer: map[string]string{"image/": "2", "": "1e3"}, code: CodeFileTooLarge, fileName: "b.png"},
		{name: "size huge", sizer: map[string]string{"": "1e300"}, status: []string{StatusUploaded, StatusUploaded}},
		{name: "size fraction", sizer: map[string]string{"": "3.9"}, status: []string{StatusUploaded, StatusUploaded}},
		{name: "size under", sizer: map[string]string{"": "2.9"}, code: CodeFileTooLarge, fileName: "a.pdf"},
		{name: "size negative", sizer: map[string]string{"": "-1"}, code: CodeInvalidMaxFileSize, cause: "-1", fileName: "a.pdf"},
		{name: "size quoted", sizer: map[string]string{"": `"5"`}, code: CodeInvalidMaxFileSize, cause: `"5"`, fileName: "a.pdf"},
		{name: "size NaN", sizer: map[string]string{"": "NaN"}, code: CodeInvalidMaxFileSize, cause: "NaN", fileName: "a.pdf"},
		{name: "size words", sizer: map[string]string{"": "lots"}, code: CodeInvalidMaxFileSize, cause: "lots", fileName: "a.pdf"},
		{name: "size fails", sizer: map[string]string{"": "!"}, code: CodeInvalidMaxFileSize, cause: "it failed", fileName: "a.pdf"},
		{name: "size only for what the filter takes", filter: byPDF, sizer: map[string]string{"png": "!", "": "3"},
			status: []string{StatusUploaded, StatusSkipped}},
		{name: "--max-size replaces the command", sizer: map[string]string{"": "!"}, maxSize: []string{"1KiB"},
			status: []string{StatusUploaded, StatusUploaded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, root := newUploader(t)
			cmds := map[string]map[string]string{}
			if tc.filter != nil {
				u.Policy.FilterCommand, cmds[filter] = []string{"my-filter"}, tc.filter
			}
			if tc.sizer != nil {
				u.Policy.MaxSizeCommand, cmds[sizer] = []string{"my-sizer"}, tc.sizer
			}
			u.Run = answers(t, cmds)
			res, err := u.Upload(context.Background(), Request{MaxSize: tc.maxSize,
				Files: []Source{bytesSource("a.pdf", "", "pdf"), bytesSource("b.png", "", "png")}})
			if tc.code != "" {
				f := failureOf(t, err, tc.code)
				if *f.Meta.FileName != tc.fileName || tc.cause != "" && (f.Meta.Cause == nil || *f.Meta.Cause != tc.cause) {
					t.Errorf("%v %+v", err, f.Meta)
				}
				if got := listUploads(t, root); len(got) != 0 {
					t.Errorf("written: %v", got)
				}
				return
			}
			must(t, err)
			var got []string
			for _, f := range res.Files {
				got = append(got, f.Status)
			}
			if strings.Join(got, " ") != strings.Join(tc.status, " ") {
				t.Errorf("statuses %v, want %v", got, tc.status)
			}
			if tc.status[1] == StatusSkipped && !strings.HasSuffix(res.Text(), "[File not uploaded]\nname: b.png\nreason: left to the model by the upload filter") {
				t.Errorf("%s", res.Text())
			}
		})
	}
}

// TestUploaderCurrentTurn: in a message list, the files of the last user
// message are the current turn, whose failures stop the call; the same
// failure in an earlier message becomes a note.
func TestUploaderCurrentTurn(t *testing.T) {
	good := base64.StdEncoding.EncodeToString([]byte("fine"))
	file := func(name, data string) string {
		return `{"type":"file","data":"` + data + `","mediaType":"text/plain","filename":"` + name + `"}`
	}
	for _, tc := range []struct {
		name    string
		doc     string
		current []bool   // Current of each file, when the call succeeds
		status  []string // Status of each file
		code    string   // else the failure
	}{
		{"bad data in history",
			`[{"role":"user","content":[` + file("a.txt", "!!") + `]},{"role":"assistant","content":"ok"},{"role":"user","content":[` + file("b.txt", good) + `]}]`,
			[]bool{false, true}, []string{StatusRejected, StatusUploaded}, ""},
		{"bad data in the current turn",
			`[{"role":"user","content":[` + file("a.txt", good) + `]},{"role":"assistant","content":"ok"},{"role":"user","content":[` + file("b.txt", "!!") + `]}]`,
			nil, nil, CodeInvalidFileData},
		{"an answer after the last user message",
			`[{"role":"user","content":[` + file("a.txt", good) + `]},{"role":"user","content":[` + file("b.txt", "!!") + `]},{"role":"assistant","content":"ok"}]`,
			nil, nil, CodeInvalidFileData},
		{"only history",
			`[{"role":"user","content":[` + file("a.txt", "!!") + `,` + file("b.txt", good) + `]},{"role":"user","content":"next"}]`,
			[]bool{false, false}, []string{StatusRejected, StatusUploaded}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := newUploader(t)
			res, err := u.Upload(context.Background(), Request{Messages: []byte(tc.doc)})
			if tc.code != "" {
				if f := failureOf(t, err, tc.code); *f.Meta.FileName != "b.txt" {
					t.Errorf("%+v", f.Meta)
				}
				return
			}
			must(t, err)
			for i, f := range res.Files {
				if f.Current != tc.current[i] || f.Status != tc.status[i] {
					t.Errorf("file %d: current %v, status %s; want %v, %s", i, f.Current, f.Status, tc.current[i], tc.status[i])
				}
			}
		})
	}
}

// TestPolicyApply: a request's Include, Exclude and MaxSize replace the
// policy's, and MaxSize also its MaxSizeCommand.
func TestPolicyApply(t *testing.T) {
	pol := Policy{Include: []string{"pdf", "image/*,csv"}, Exclude: []string{".exe"}, MaxSize: []string{"image/*=5MiB", "20MB"},
		FilterCommand: []string{"my-filter"}, MaxSizeCommand: []string{"my-sizer"}}
	png := InfoOf(File{MIMEType: "image/png"})
	for _, tc := range []struct {
		name                   string
		req                    Request
		include, exclude       int
		pngLimit, defaultLimit int64
		sizeCmd                bool
	}{
		{"policy", Request{}, 3, 1, 5 << 20, 20e6, true},
		{"request", Request{Include: []string{"png"}, Exclude: []string{}, MaxSize: []string{"1KiB"}}, 1, 0, 1024, 1024, false},
		{"an empty include replaces the policy's", Request{Include: []string{}}, 0, 1, 5 << 20, 20e6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pol.apply(tc.req)
			must(t, err)
			if len(p.sel.Include) != tc.include || len(p.sel.Exclude) != tc.exclude || p.limits.For(png) != tc.pngLimit ||
				p.limits.Default != tc.defaultLimit || (p.sizeCmd != nil) != tc.sizeCmd || len(p.filterCmd) != 1 {
				t.Errorf("%+v", p)
			}
		})
	}
}

// TestUploaderInterrupted: a call whose context is cancelled (ws got
// SIGINT or SIGTERM) ends with the context's cause, whatever step it was
// in, so that ws exits as the signal asks, coded TIMEOUT as every wait ws
// cuts short when asked to stop (not INTERNAL); it is not one of Mastra's
// tripwires, and a message list is not printed with notes saying the
// sandbox failed. Nothing it wrote stays.
func TestUploaderInterrupted(t *testing.T) {
	stop := errors.New("interrupted by SIGTERM")
	history := `[{"role":"user","content":[{"type":"file","data":"b25lCg==","mediaType":"text/plain","filename":"one.txt"}]},{"role":"user","content":"next"}]`
	for _, tc := range []struct {
		name string
		req  func(cancel func()) Request
		// filter is the filter command's behaviour (the size command's
		// with sizer), nil for none.
		filter func(ctx context.Context, cancel func()) ([]byte, error)
		sizer  bool
	}{
		{name: "while the filter runs",
			req: func(func()) Request { return Request{Files: []Source{bytesSource("a.txt", "", "a")}} },
			filter: func(ctx context.Context, cancel func()) ([]byte, error) {
				cancel()
				<-ctx.Done()
				return nil, errors.New("upload.filterCommand (my-filter) failed: interrupted by SIGTERM")
			}},
		{name: "the filter command saw the signal first",
			req: func(func()) Request { return Request{Files: []Source{bytesSource("a.txt", "", "a")}} },
			filter: func(ctx context.Context, cancel func()) ([]byte, error) {
				return nil, fmt.Errorf("upload.filterCommand (my-filter) failed: %w", &runner.SignalError{Signal: unix.SIGINT})
			}},
		{name: "the size command saw the signal first", sizer: true,
			req: func(func()) Request { return Request{Files: []Source{bytesSource("a.txt", "", "a")}} },
			filter: func(ctx context.Context, cancel func()) ([]byte, error) {
				return nil, fmt.Errorf("upload.maxSizeCommand (my-sizer) failed: %w", &runner.SignalError{Signal: unix.SIGINT})
			}},
		{name: "while a stream is copied",
			req: func(cancel func()) Request {
				return Request{Files: []Source{bytesSource("a.txt", "", "a"), stdinSource("b.bin", "", &endless{n: 3 * copyBufSize, after: cancel})}}
			}},
		{name: "while an endless stream over its limit is counted",
			req: func(cancel func()) Request {
				return Request{MaxSize: []string{"1KiB"}, Files: []Source{stdinSource("b.bin", "", &endless{n: 3 * copyBufSize, after: cancel})}}
			}},
		{name: "history files of a message list",
			req: func(func()) Request { return Request{Messages: []byte(history)} },
			filter: func(ctx context.Context, cancel func()) ([]byte, error) {
				cancel() // the signal comes as the filter answers
				return []byte("true"), nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, root := newUploader(t)
			ctx, cancelCause := context.WithCancelCause(context.Background())
			defer cancelCause(nil)
			cancel := func() { cancelCause(stop) }
			if tc.filter != nil {
				if tc.sizer {
					u.Policy.MaxSizeCommand = []string{"my-sizer"}
				} else {
					u.Policy.FilterCommand = []string{"my-filter"}
				}
				u.Run = func(ctx context.Context, _ string, _ []string, _ []byte) ([]byte, error) {
					return tc.filter(ctx, cancel)
				}
			}
			done := make(chan error, 1)
			go func() {
				res, err := u.Upload(ctx, tc.req(cancel))
				if err == nil {
					err = errors.New("succeeded: " + res.Text())
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("still running 10s after it was interrupted")
			}
			var sig *runner.SignalError
			if !errors.Is(err, stop) && !errors.As(err, &sig) || errs.CodeOf(err) != errs.Timeout || err.Error() != stop.Error() && err.Error() != "interrupted by SIGINT" {
				t.Errorf("error %v (%T, %s), want the cancellation's cause or the signal, code %s", err, err, errs.CodeOf(err), errs.Timeout)
			}
			if got := listUploads(t, root); len(got) != 0 {
				t.Errorf("left behind: %v", got)
			}
		})
	}
}

// TestUploaderSourceErrors: a source that cannot be opened or read is
// named as typed, with the reason. The caller's own files are not
// workspace paths: a symlink loop among them is not an escape from the
// workspace (before: "Permission denied: access on loop", code
// OUTSIDE_WORKSPACE).
func TestUploaderSourceErrors(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Symlink("loop-b", filepath.Join(dir, "loop-a")))
	must(t, os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644))
	src := func(name string) Source {
		s := fileSource(filepath.Join(dir, name))
		s.Label = name
		return s
	}
	for _, tc := range []struct {
		name string
		code errs.Code
		msg  string
	}{
		{"missing.txt", errs.ENOENT, "File not found: missing.txt"},
		{"sub", errs.EISDIR, "Path is a directory: sub"},
		{"f.txt/x", errs.ENOTDIR, "Path is not a directory: f.txt/x"},
		{"loop-a", errs.EIO, "open failed on loop-a: too many levels of symbolic links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, root := newUploader(t)
			_, err := u.Upload(context.Background(), Request{Files: []Source{src(tc.name)}})
			if errs.CodeOf(err) != tc.code || err == nil || err.Error() != tc.msg {
				t.Errorf("error %v (%s), want %q (%s)", err, errs.CodeOf(err), tc.msg, tc.code)
			}
			if got := listUploads(t, root); len(got) != 0 {
				t.Errorf("written: %v", got)
			}
		})
	}
}

// TestAnswerTextCutsWholeCharacters: a command's long answer is quoted at
// 200 bytes without splitting a UTF-8 character.
func TestAnswerTextCutsWholeCharacters(t *testing.T) {
	got := answerText("a" + strings.Repeat("é", 150))
	if !strings.HasSuffix(got, "…") || len(got) > 200+len("…") || !utf8.ValidString(got) {
		t.Fatalf("answerText = %q (%d bytes)", got, len(got))
	}
}
