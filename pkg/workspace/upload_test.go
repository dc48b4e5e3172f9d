package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/upload"
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
func stdinSource(name, mime string, r io.Reader) UploadSource {
	return UploadSource{Label: "-", Name: name, MIMEType: mime, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

func fileSource(path string) UploadSource {
	return UploadSource{Label: path, Name: filepath.Base(path), Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

func bytesSource(name, mime, content string) UploadSource {
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

func failureOf(t *testing.T, err error, code errs.Code) *upload.Failure {
	t.Helper()
	var f *upload.Failure
	if errs.CodeOf(err) != code || !errors.As(err, &f) {
		t.Fatalf("error %v (%s), want %s", err, errs.CodeOf(err), code)
	}
	return f
}

func TestUploadFilesAndDedupe(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "big data.bin")
	f, _ := os.Create(src)
	io.Copy(f, &patternReader{n: 3<<20 + 5})
	f.Close()
	res, err := w.Upload(ctx, UploadRequest{Files: []UploadSource{fileSource(src), bytesSource("", "", "plain text\n")}})
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
	res, err = w.Upload(ctx, UploadRequest{Files: []UploadSource{fileSource(src)}})
	must(t, err)
	if res.Files[0].Written {
		t.Error("same content written again")
	}
	if fi, _ := os.Stat(wantPath); !fi.ModTime().Equal(before) {
		t.Error("existing file touched")
	}

	// An existing file of the right size but other content is not trusted.
	must(t, os.WriteFile(wantPath, bytes.Repeat([]byte{'x'}, 3<<20+5), 0o644))
	res, err = w.Upload(ctx, UploadRequest{Files: []UploadSource{fileSource(src)}})
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
	_, err = w.Upload(ctx, UploadRequest{Files: []UploadSource{bytesSource("", "text/plain", "plain text\n")}})
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

func TestUploadConstantMemory(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	const n = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := w.Upload(context.Background(), UploadRequest{MaxSize: []string{"1GiB"}, Files: []UploadSource{stdinSource("x.bin", "", &patternReader{n: n})}})
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

func TestUploadStopsBeforeWriting(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	ctx := context.Background()
	// A stream over its limit: found while copying; nothing stays.
	_, err := w.Upload(ctx, UploadRequest{MaxSize: []string{"1KiB"}, Files: []UploadSource{
		bytesSource("a.txt", "", "small"),
		stdinSource("big.bin", "", &patternReader{n: 5000}),
	}})
	f := failureOf(t, err, errs.UploadFileTooLarge)
	if err.Error() != `File "big.bin" is 5000 bytes, over the 1024 byte limit.` || *f.Meta.Size != 5000 || *f.Meta.MaxFileSize != 1024 {
		t.Errorf("%v %+v", err, f.Meta)
	}
	if _, err := os.Lstat(filepath.Join(root, "uploads")); !os.IsNotExist(err) {
		t.Errorf("uploads left behind: %v", listUploads(t, root))
	}
	// A regular file over its limit: found before anything is read.
	src := filepath.Join(t.TempDir(), "r.pdf")
	must(t, os.WriteFile(src, make([]byte, 2048), 0o644))
	_, err = w.Upload(ctx, UploadRequest{MaxSize: []string{"pdf=2KB", "1MiB"}, Files: []UploadSource{fileSource(src)}})
	if f := failureOf(t, err, errs.UploadFileTooLarge); *f.Meta.MIMEType != "application/pdf" || *f.Meta.MaxFileSize != 2000 {
		t.Errorf("%+v", f.Meta)
	}
}

func TestUploadFailedCleansUp(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	ctx := context.Background()
	// The second file's name is taken by a directory: its rename fails, and
	// the first file, placed by this call, is removed again.
	must(t, os.MkdirAll(filepath.Join(root, "uploads/shared", sum("two")+".txt", "sub"), 0o755))
	keep := filepath.Join(root, "uploads/shared", sum("old")+".txt")
	must(t, os.WriteFile(keep, []byte("old"), 0o644))
	_, err := w.Upload(ctx, UploadRequest{Files: []UploadSource{
		bytesSource("old.txt", "", "old"), bytesSource("one.txt", "", "one"), bytesSource("two.txt", "", "two"),
	}})
	f := failureOf(t, err, errs.UploadFailed)
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
	uploadFault = func(step, name string) error {
		if step == "cleanup" || step == "place" && strings.HasPrefix(name, sum("four")) {
			return unix.EIO
		}
		return nil
	}
	defer func() { uploadFault = nil }()
	_, err = w.Upload(ctx, UploadRequest{Files: []UploadSource{bytesSource("three.txt", "", "three"), bytesSource("four.txt", "", "four")}})
	f = failureOf(t, err, errs.UploadFailed)
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

func TestUploadDirectory(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	w.thread = "../../support ticket #42"
	res, err := w.Upload(context.Background(), UploadRequest{Resource: "r", Files: []UploadSource{bytesSource("", "application/pdf", "%PDF")}})
	must(t, err)
	if res.Directory != "uploads/support_ticket_42" || res.Files[0].RelPath != "uploads/support_ticket_42/"+sum("%PDF")+".pdf" {
		t.Errorf("%+v", res)
	}
	w.thread = ""
	res, err = w.Upload(context.Background(), UploadRequest{Resource: "user/7", Files: []UploadSource{bytesSource("", "", "x")}})
	must(t, err)
	if res.Directory != "uploads/user_7" {
		t.Errorf("%s", res.Directory)
	}
	// An uploads directory that leads outside the workspace is refused.
	out := t.TempDir()
	must(t, os.RemoveAll(filepath.Join(root, "uploads")))
	must(t, os.Symlink(out, filepath.Join(root, "uploads")))
	_, err = w.Upload(context.Background(), UploadRequest{Files: []UploadSource{bytesSource("", "", "x")}})
	if f := failureOf(t, err, errs.UploadFailed); *f.Meta.Cause != "Permission denied: access on uploads/shared" {
		t.Errorf("%+v", f.Meta)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Error("wrote outside the workspace")
	}
}

func TestUploadNoSandbox(t *testing.T) {
	cfg := config.Default()
	cfg.Sandbox.Disabled = true
	w, _ := newTestWorkspace(t, cfg)
	_, err := w.Upload(context.Background(), UploadRequest{Files: []UploadSource{bytesSource("", "", "x")}})
	failureOf(t, err, errs.UploadNoSandbox)
}

func TestUploadCommands(t *testing.T) {
	cfg := config.Default()
	w, _ := newTestWorkspace(t, cfg)
	ctx := context.Background()
	srcs := func() []UploadSource {
		return []UploadSource{bytesSource("a.pdf", "", "pdf"), bytesSource("b.png", "", "png")}
	}
	// The filter sees the file info as JSON and answers true or false.
	cfg.Upload.FilterCommand = []string{"/bin/sh", "-c", `grep -q '"extension":"pdf"' && echo true || echo false`}
	res, err := w.Upload(ctx, UploadRequest{Files: srcs()})
	must(t, err)
	if res.Files[0].Status != UploadStatusUploaded || res.Files[1].Status != UploadStatusSkipped ||
		!strings.HasSuffix(res.Text(), "[File not uploaded]\nname: b.png\nreason: left to the model by the upload filter") {
		t.Errorf("%s", res.Text())
	}
	for _, tc := range []struct{ cmd, cause string }{
		{`echo yes`, "yes"},
		{`true`, "(no answer)"},
		{`echo oops >&2; exit 3`, "upload.filterCommand (/bin/sh -c echo oops >&2; exit 3) failed: exit status 3: oops"},
	} {
		cfg.Upload.FilterCommand = []string{"/bin/sh", "-c", tc.cmd}
		_, err := w.Upload(ctx, UploadRequest{Files: srcs()})
		f := failureOf(t, err, errs.UploadInvalidFilter)
		if err.Error() != `filter must return true or false; it did not for File "a.pdf".` || *f.Meta.Cause != tc.cause {
			t.Errorf("%s: %v %q", tc.cmd, err, *f.Meta.Cause)
		}
	}
	cfg.Upload.FilterCommand = nil
	// The size command answers a number of bytes.
	cfg.Upload.MaxSizeCommand = []string{"/bin/sh", "-c", `grep -q image/ && echo 2 || echo 1e3`}
	_, err = w.Upload(ctx, UploadRequest{Files: srcs()})
	if f := failureOf(t, err, errs.UploadFileTooLarge); *f.Meta.MaxFileSize != 2 || *f.Meta.FileName != "b.png" {
		t.Errorf("%+v", f.Meta)
	}
	for _, answer := range []string{"-1", `"5"`, "NaN", "lots"} {
		cfg.Upload.MaxSizeCommand = []string{"/bin/sh", "-c", "echo '" + answer + "'"}
		_, err = w.Upload(ctx, UploadRequest{Files: srcs()})
		if f := failureOf(t, err, errs.UploadInvalidMaxFileSize); *f.Meta.Cause != answer ||
			err.Error() != `maxFileSize must return a non-negative number of bytes; it did not for File "a.pdf".` {
			t.Errorf("%s: %v", answer, f.Meta)
		}
	}
	// --max-size replaces the command.
	_, err = w.Upload(ctx, UploadRequest{MaxSize: []string{"1KiB"}, Files: srcs()})
	must(t, err)
}

func TestUploadMessages(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	ctx := context.Background()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	doc := func(history, current string) []byte {
		return []byte(`[{"role":"user","content":[{"type":"file","data":"` + history + `","mediaType":"text/plain","filename":"old.txt"}]},` +
			`{"role":"assistant","content":"ok"},` +
			`{"role":"user","content":[{"type":"text","text":"see"},{"type":"file","data":"` + current + `","mediaType":"text/csv","filename":"new.csv"}]}]`)
	}
	res, err := w.Upload(ctx, UploadRequest{Messages: doc(b64("history!"), b64("a,b\n"))})
	must(t, err)
	real := fsroot.RealpathPartial(root)
	want := `[{"role":"user","content":[{"type":"text","text":"[File uploaded to the sandbox]\npath: ` + real + `/uploads/shared/` + sum("history!") + `.txt\nname: old.txt\ntype: text/plain\nsize: 8 bytes"}]},` +
		`{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":[{"type":"text","text":"see"},{"type":"text","text":"[File uploaded to the sandbox]\npath: ` + real + `/uploads/shared/` + sum("a,b\n") + `.csv\nname: new.csv\ntype: text/csv\nsize: 4 bytes"}]}]`
	if res.Text() != want || string(res.Messages) != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text(), want)
	}

	// A history file over its limit becomes a note; the turn goes on.
	res, err = w.Upload(ctx, UploadRequest{MaxSize: []string{"5"}, Messages: doc(b64("history!"), b64("a,b\n"))})
	must(t, err)
	if !strings.Contains(res.Text(), `"[File not uploaded]\nname: old.txt\nreason: File \"old.txt\" is 8 bytes, over the 5 byte limit."`) ||
		res.Files[0].Status != UploadStatusRejected || res.Files[1].Status != UploadStatusUploaded {
		t.Errorf("%s", res.Text())
	}
	// A history file that can't be decoded too.
	res, err = w.Upload(ctx, UploadRequest{Messages: doc("not base64!", b64("a,b\n"))})
	must(t, err)
	if !strings.Contains(res.Text(), `reason: File \"old.txt\" has inline data that cannot be decoded."`) {
		t.Errorf("%s", res.Text())
	}
	// The same in the current turn stops it, and nothing is written.
	must(t, os.RemoveAll(filepath.Join(root, "uploads")))
	_, err = w.Upload(ctx, UploadRequest{Messages: doc(b64("history!"), "not base64!")})
	if f := failureOf(t, err, errs.UploadInvalidFileData); *f.Meta.FileName != "new.csv" || *f.Meta.MIMEType != "text/csv" {
		t.Errorf("%+v", f.Meta)
	}
	_, err = w.Upload(ctx, UploadRequest{MaxSize: []string{"3"}, Messages: doc(b64("history!"), b64("a,b\n"))})
	failureOf(t, err, errs.UploadFileTooLarge)
	if got := listUploads(t, root); len(got) != 0 {
		t.Errorf("written: %v", got)
	}

	// A sandbox failure stops a turn that has a file ...
	must(t, os.WriteFile(filepath.Join(root, "uploads"), nil, 0o644))
	_, err = w.Upload(ctx, UploadRequest{Messages: doc(b64("history!"), b64("a,b\n"))})
	failureOf(t, err, errs.UploadFailed)
	// ... and becomes notes when only the history has files.
	hist := []byte(`[{"role":"user","content":[{"type":"file","data":"` + b64("h") + `","mediaType":"text/plain","filename":"old.txt"}]},{"role":"user","content":"next"}]`)
	res, err = w.Upload(ctx, UploadRequest{Messages: hist})
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
	res, err = w.Upload(ctx, UploadRequest{Messages: same})
	must(t, err)
	if res.Files[0].RelPath != "uploads/shared/"+sum("x")+".txt" || res.Files[1].RelPath != "uploads/shared/"+sum("x")+".md" ||
		res.Files[2].RelPath != res.Files[0].RelPath || !res.Files[0].Written || !res.Files[1].Written {
		t.Errorf("%+v", res.Files)
	}
	if got := listUploads(t, root); len(got) != 3 {
		t.Errorf("uploads: %v", got)
	}

	// Bad JSON is a usage error.
	if _, err := w.Upload(ctx, UploadRequest{Messages: []byte(`{`)}); errs.CodeOf(err) != errs.InvalidArgument {
		t.Errorf("%v", err)
	}
}

func TestUploadConcurrent(t *testing.T) {
	_, root := newTestWorkspace(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w2, err := New(Options{Root: root, StateDir: t.TempDir()})
			if err != nil {
				errs <- err
				return
			}
			defer w2.Close()
			_, err = w2.Upload(context.Background(), UploadRequest{Files: []UploadSource{stdinSource("x.bin", "", &patternReader{n: 1 << 20})}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	if got := listUploads(t, root); len(got) != 2 {
		t.Errorf("uploads: %v", got)
	}
}

func TestUploadConfig(t *testing.T) {
	cfg, err := config.Parse([]byte(`{"upload": {"include": ["pdf", "image/*,csv"], "exclude": [".exe"], "maxSize": ["image/*=5MiB", "20MB"],
		"filterCommand": ["my-filter", "--strict"]}}`), ConfigKeys())
	must(t, err)
	u := cfg.Upload
	if len(u.Include) != 2 || u.Exclude[0] != ".exe" || len(u.MaxSize) != 2 || strings.Join(u.FilterCommand, " ") != "my-filter --strict" {
		t.Errorf("%+v", u)
	}
	w, _ := newTestWorkspace(t, cfg)
	pol, err := w.uploadPolicy(UploadRequest{})
	must(t, err)
	png := upload.InfoOf(upload.File{MIMEType: "image/png"})
	if len(pol.sel.Include) != 3 || pol.limits.For(png) != 5<<20 || pol.limits.Default != 20e6 {
		t.Errorf("%+v", pol)
	}
	for doc, want := range map[string]string{
		`{"upload": {"maxSize": 1048576}}`:                  "",
		`{"upload": {"maxSize": "1.5GiB"}}`:                 "",
		`{"upload": {"maxSizeCommand": "echo 5"}}`:          "",
		`{"upload": {"maxSize": -1}}`:                       "upload.maxSize: expected a non-negative integer",
		`{"upload": {"maxSize": true}}`:                     "upload.maxSize: expected a number of bytes",
		`{"upload": {"maxSize": ["image/*=lots"]}}`:         `upload.maxSize: in "image/*=lots": "lots" is not a size`,
		`{"upload": {"include": ["image/["]}}`:              `upload.include: "image/[" is not a valid glob`,
		`{"upload": {"exclude": "pdf"}}`:                    "upload.exclude: expected an array of strings",
		`{"upload": {"filterCommand": ""}}`:                 "upload.filterCommand: expected a command",
		`{"upload": {"maxFileSize": 5}}`:                    "upload.maxFileSize: unknown key",
		`{"upload": {"maxSize": 5, "maxSizeCommand": "x"}}`: "upload: give maxSize or maxSizeCommand, not both",
		`{"upload": []}`:                                    "upload: expected an object",
	} {
		_, err := config.Parse([]byte(doc), ConfigKeys())
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", doc, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
