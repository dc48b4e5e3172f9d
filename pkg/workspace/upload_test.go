package workspace

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/upload"
)

// TestUpload checks what Upload adds to pkg/upload's uploader: the config's
// upload section and sandbox switch, the thread, helper commands run in the
// workspace, and failures in their coded form (pkg/upload tests the
// uploader itself).
func TestUpload(t *testing.T) {
	src := func(name, content string) upload.Source {
		return upload.Source{Label: "-", Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil }}
	}
	files := func() []upload.Source { return []upload.Source{src("a.pdf", "pdf"), src("b.png", "png")} }
	sh := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	for _, tc := range []struct {
		name   string
		edit   func(c *config.Config)
		thread string
		req    upload.Request
		dir    string // the upload directory, when the call succeeds
		status string // b.png's status
		code   errs.Code
		msg    string // the error's message
		cause  string // its cause, for a failure that has one
	}{
		{name: "defaults", req: upload.Request{Files: files()}, dir: "uploads/shared", status: upload.StatusUploaded},
		{name: "thread", thread: "support #42", req: upload.Request{Resource: "r", Files: files()},
			dir: "uploads/support_42", status: upload.StatusUploaded},
		{name: "filter reads the file info",
			edit: func(c *config.Config) {
				c.Upload.FilterCommand = sh(`grep -q '"extension":"pdf"' && echo true || echo false`)
			},
			req: upload.Request{Files: files()}, dir: "uploads/shared", status: upload.StatusSkipped},
		{name: "filter fails",
			edit: func(c *config.Config) { c.Upload.FilterCommand = sh(`echo oops >&2; exit 3`) },
			req:  upload.Request{Files: files()}, code: errs.UploadInvalidFilter,
			msg:   `filter must return true or false; it did not for File "a.pdf".`,
			cause: "upload.filterCommand (/bin/sh -c echo oops >&2; exit 3) failed: exit status 3: oops"},
		{name: "size command", edit: func(c *config.Config) { c.Upload.MaxSizeCommand = sh(`grep -q image/ && echo 2 || echo 1e3`) },
			req: upload.Request{Files: files()}, code: errs.FileTooLarge, msg: `File "b.png" is 3 bytes, over the 2 byte limit.`},
		{name: "config limits", edit: func(c *config.Config) { c.Upload.MaxSize = []string{"image/*=2", "1KiB"} },
			req: upload.Request{Files: files()}, code: errs.FileTooLarge, msg: `File "b.png" is 3 bytes, over the 2 byte limit.`},
		{name: "no sandbox", edit: func(c *config.Config) { c.Sandbox.Disabled = true }, req: upload.Request{Files: files()},
			code: errs.UploadNoSandbox, msg: "FileUploadProcessor requires a workspace with a sandbox to upload files to."},
		{name: "bad messages", req: upload.Request{Messages: []byte(`{`)}, code: errs.InvalidArgument, msg: "--messages: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			if tc.edit != nil {
				tc.edit(cfg)
			}
			w, _ := newTestWorkspace(t, cfg)
			w.thread = tc.thread
			res, err := w.Upload(context.Background(), tc.req)
			if tc.code == "" {
				must(t, err)
				if res.Directory != tc.dir || len(res.Files) != 2 || res.Files[1].Status != tc.status {
					t.Errorf("%+v", res)
				}
				return
			}
			if errs.CodeOf(err) != tc.code || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Fatalf("error %v (%s), want %s: %s", err, errs.CodeOf(err), tc.code, tc.msg)
			}
			var f *upload.Failure
			if isFailure := errors.As(err, &f); isFailure != (tc.code != errs.InvalidArgument) {
				t.Fatalf("error %v: an *upload.Failure %v", err, isFailure)
			}
			if tc.cause != "" && (f.Meta.Cause == nil || *f.Meta.Cause != tc.cause) {
				t.Errorf("cause %+v, want %q", f.Meta, tc.cause)
			}
		})
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
