package workspace

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/upload"
)

// UploadSource is one file handed to upload by the caller (a path on the
// command line, or stdin).
type UploadSource struct {
	// Label names the source in messages about opening or reading it (the
	// path as typed, or "-").
	Label string
	// Name is the name the file is sent with; "" for none.
	Name string
	// MIMEType is the type it is sent with; "" to work it out from the
	// name, else from the first bytes.
	MIMEType string
	// Open opens the bytes. A regular file is opened twice: once to learn
	// its type and size, once to read it. Anything else (a pipe, stdin) is
	// opened once and read as it comes.
	Open func() (io.ReadCloser, error)
}

// UploadRequest is the input of upload, Mastra's FileUploadProcessor as a
// command. Either Files (each one sent now: any failure stops the turn) or
// Messages (a message list whose last user message is the current turn).
type UploadRequest struct {
	Files    []UploadSource
	Messages []byte
	// Resource names the upload directory when there is no thread.
	Resource string
	// Include, Exclude and MaxSize, when not nil, replace the config's
	// upload.include, upload.exclude and upload.maxSize (MaxSize also
	// replaces upload.maxSizeCommand). Syntax: see pkg/upload.
	Include, Exclude, MaxSize []string
}

// UploadResult is the outcome of upload: one entry per file considered,
// in order, and in messages mode the rewritten list.
type UploadResult struct {
	// Directory is the upload directory, relative to the workspace root.
	Directory string         `json:"directory"`
	Files     []UploadedFile `json:"files"`
	// Messages is the rewritten message list (messages mode only).
	Messages json.RawMessage `json:"messages,omitempty"`
	textOut
}

// Upload statuses.
const (
	UploadStatusUploaded = "uploaded" // placed (or already there with the same content)
	UploadStatusSkipped  = "skipped"  // left to the model by the filter
	UploadStatusRejected = "rejected" // a history file that could not be uploaded
)

// UploadedFile is what became of one file.
type UploadedFile struct {
	Status string `json:"status"`
	// Name is the display name; FileName the name as sent ("" for none).
	Name     string `json:"name"`
	FileName string `json:"file_name,omitempty"`
	Type     string `json:"type"`
	Size     *int64 `json:"size,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	// Path is where the file was placed (absolute); RelPath the same,
	// relative to the workspace root.
	Path    string `json:"path,omitempty"`
	RelPath string `json:"rel_path,omitempty"`
	// Written is false when the same content was already in place.
	Written bool   `json:"written"`
	Reason  string `json:"reason,omitempty"`
	// Message and Part locate the file part in a message list (Part is -1
	// when the message content is the part itself).
	Message *int `json:"message,omitempty"`
	Part    *int `json:"part,omitempty"`
	// Current marks a file of the current turn, the last user message
	// (messages mode; on the command line every file is of the current turn).
	Current bool   `json:"current,omitempty"`
	Note    string `json:"note"`
}

// Upload places files in the sandbox working directory (the workspace
// root) at uploads/<dir>/<sha256>.<ext> and gives, for each one, the note
// that replaces it in the prompt. Files are hashed and copied in one pass
// into hidden temporary files, then renamed into place; a file already in
// place is kept when its size and hash match. When the turn stops, what
// this call wrote is removed again, and the failure carries Mastra's
// tripwire metadata.
func (w *Workspace) Upload(ctx context.Context, req UploadRequest) (*UploadResult, error) {
	pol, err := w.uploadPolicy(req)
	if err != nil {
		return nil, err
	}
	var list *upload.Messages
	if req.Messages != nil {
		if list, err = upload.ParseMessages(req.Messages); err != nil {
			return nil, errs.Invalid("messages", err.Error())
		}
	}
	if w.cfg.Sandbox.Disabled {
		return nil, uploadError(upload.NoSandbox())
	}
	u := &uploader{w: w, ctx: ctx, pol: pol, dir: upload.UploadsDir + "/" + upload.Directory(w.thread, req.Resource)}
	if list != nil {
		return u.messages(list)
	}
	return u.files(req.Files)
}

// uploadPolicy is the filter and the size limits in effect.
type uploadPolicy struct {
	sel       upload.Selector
	limits    upload.Limits
	filterCmd []string
	sizeCmd   []string
}

func (w *Workspace) uploadPolicy(req UploadRequest) (*uploadPolicy, error) {
	c := w.cfg.Upload
	include, exclude, maxSize, sizeCmd := c.Include, c.Exclude, c.MaxSize, c.MaxSizeCommand
	if req.Include != nil {
		include = req.Include
	}
	if req.Exclude != nil {
		exclude = req.Exclude
	}
	if req.MaxSize != nil {
		maxSize, sizeCmd = req.MaxSize, nil
	}
	p := &uploadPolicy{filterCmd: c.FilterCommand, sizeCmd: sizeCmd}
	var err error
	if p.sel.Include, err = upload.ParsePatterns(include); err != nil {
		return nil, errs.Invalid("upload.include", err.Error())
	}
	if p.sel.Exclude, err = upload.ParsePatterns(exclude); err != nil {
		return nil, errs.Invalid("upload.exclude", err.Error())
	}
	if p.limits, err = upload.ParseLimits(maxSize); err != nil {
		return nil, errs.Invalid("upload.maxSize", err.Error())
	}
	return p, nil
}

// uploader runs one upload call.
type uploader struct {
	w   *Workspace
	ctx context.Context
	pol *uploadPolicy
	dir string // uploads/<dir>, relative to the root
}

// accept is the filter: include/exclude patterns, then upload.filterCommand.
func (u *uploader) accept(f upload.File) (bool, error) {
	info := upload.InfoOf(f)
	if !u.pol.sel.Accepts(info) {
		return false, nil
	}
	if len(u.pol.filterCmd) == 0 {
		return true, nil
	}
	out, err := u.w.runUploadCommand(u.ctx, "upload.filterCommand", u.pol.filterCmd, info)
	if err != nil {
		return false, uploadError(upload.InvalidFilter(f, err.Error()))
	}
	switch out {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, uploadError(upload.InvalidFilter(f, answerText(out)))
}

// limit is a file's size limit: the --max-size rules, else
// upload.maxSizeCommand, else the config's rules, else 10 MiB.
func (u *uploader) limit(f upload.File) (int64, error) {
	info := upload.InfoOf(f)
	if len(u.pol.sizeCmd) == 0 {
		return u.pol.limits.For(info), nil
	}
	out, err := u.w.runUploadCommand(u.ctx, "upload.maxSizeCommand", u.pol.sizeCmd, info)
	if err != nil {
		return 0, uploadError(upload.InvalidMaxFileSize(f, err.Error()))
	}
	var n float64
	if json.Unmarshal([]byte(out), &n) != nil || strings.HasPrefix(out, "\"") || !(n >= 0) {
		return 0, uploadError(upload.InvalidMaxFileSize(f, answerText(out)))
	}
	if n >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(n), nil // a whole number of bytes is over x exactly when it is over floor(x)
}

// answerText quotes a command's answer in a cause.
func answerText(out string) string {
	if out == "" {
		return "(no answer)"
	}
	if len(out) > 200 {
		return out[:200] + "…"
	}
	return out
}

// runUploadCommand runs a config command with a file's info as one line of
// JSON on stdin, in the workspace root, and returns what it printed, trimmed.
func (w *Workspace) runUploadCommand(ctx context.Context, name string, argv []string, info upload.FileInfo) (string, error) {
	in, err := json.Marshal(info)
	if err != nil {
		return "", err
	}
	res, err := runner.Run(ctx, runner.Cmd{Argv: argv, Dir: w.base, Env: w.hostEnv,
		Stdin: append(in, '\n'), Timeout: helperTimeoutOf(w.cfg.Upload.CommandTimeout)}) // one line, for line-oriented shell filters
	if err != nil {
		return "", errs.CommandError(name, argv, err, stderrLine(res))
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

// ---------------------------------------------------------------------------
// Files from the command line: all of the current turn.
// ---------------------------------------------------------------------------

// sourceFile is a command-line file on its way to the sandbox.
type sourceFile struct {
	src    UploadSource
	f      upload.File
	size   int64         // -1 until known
	stream io.ReadCloser // kept open: a source that can be read only once
	head   *bufio.Reader // reads stream from its start
	ok     bool          // accepted by the filter
	limit  int64
	staged *upload.Staged
}

// uploadSniffLen bytes of a source decide its type when neither the caller
// nor the name gives one (mimetype reads no further).
const uploadSniffLen = 3072

func (u *uploader) files(srcs []UploadSource) (*UploadResult, error) {
	items := make([]*sourceFile, len(srcs))
	defer func() {
		for _, it := range items {
			if it != nil && it.stream != nil {
				it.stream.Close()
			}
		}
	}()
	for i, src := range srcs {
		it, err := u.w.openSource(src)
		if err != nil {
			return nil, err
		}
		items[i] = it
	}
	// As Mastra: the filter for every file, then every limit, then sizes.
	for _, it := range items {
		ok, err := u.accept(it.f)
		if err != nil {
			return nil, err
		}
		it.ok = ok
	}
	for _, it := range items {
		if !it.ok {
			continue
		}
		limit, err := u.limit(it.f)
		if err != nil {
			return nil, err
		}
		it.limit = limit
		if it.size > limit {
			return nil, uploadError(upload.TooLarge(it.f, it.size, limit))
		}
	}
	var tx *upload.Tx
	fail := func(err error) (*UploadResult, error) {
		if tx == nil {
			return nil, err
		}
		orphans := tx.Rollback()
		var f *upload.Failure
		if errors.As(err, &f) && f.Code == upload.CodeUploadFailed {
			f.Meta.OrphanPaths = orphans
		}
		return nil, err
	}
	for _, it := range items {
		if !it.ok {
			continue
		}
		if tx == nil {
			var err error
			if tx, err = u.beginUpload(); err != nil {
				return nil, err
			}
		}
		r, err := u.reader(it)
		if err != nil {
			return fail(err)
		}
		st, err := tx.Stage(u.ctx, r, it.limit)
		if it.stream == nil {
			r.(io.Closer).Close()
		}
		var over *upload.OverLimit
		switch {
		case errors.As(err, &over):
			return fail(uploadError(upload.TooLarge(it.f, over.Size, it.limit)))
		case err != nil:
			return fail(txError(err))
		}
		it.staged = st
	}
	res := &UploadResult{Directory: u.dir, Files: []UploadedFile{}}
	notes := make([]string, 0, len(items))
	for _, it := range items {
		uf := UploadedFile{Name: upload.DisplayName(it.f.Name), FileName: it.f.Name, Type: media.Normalize(it.f.MIMEType)}
		if !it.ok {
			uf.Status, uf.Reason = UploadStatusSkipped, skippedReason
			uf.Note = upload.RejectedNote(it.f.Name, skippedReason)
		} else {
			p, err := tx.Place(it.staged, upload.SafeExtension(it.f.Name, it.f.MIMEType))
			if err != nil {
				return fail(txError(err))
			}
			u.uploaded(&uf, it.f, it.staged, p)
		}
		res.Files = append(res.Files, uf)
		notes = append(notes, uf.Note)
	}
	if tx != nil {
		tx.Commit(u.w.now())
	}
	res.text = strings.Join(notes, "\n\n")
	return res, nil
}

// skippedReason says why a file the filter did not accept has no upload.
const skippedReason = "left to the model by the upload filter"

// uploaded fills in the entry of a placed file.
func (u *uploader) uploaded(uf *UploadedFile, f upload.File, st *upload.Staged, p upload.Placed) {
	size := st.Size
	uf.Status, uf.Size, uf.SHA256 = UploadStatusUploaded, &size, st.Hash
	uf.RelPath, uf.Path, uf.Written = p.Rel, p.Abs, p.Written
	uf.Note = upload.UploadedNote(p.Abs, f.Name, f.MIMEType, st.Size)
}

// openSource opens a command-line source and works out its type and, for a
// regular file, its size.
func (w *Workspace) openSource(src UploadSource) (*sourceFile, error) {
	it := &sourceFile{src: src, f: upload.File{Name: src.Name, MIMEType: src.MIMEType}, size: -1}
	rc, err := src.Open()
	if err != nil {
		return nil, errs.FromOS("open", src.Label, err, false)
	}
	regular := false
	if f, ok := rc.(*os.File); ok {
		fi, err := f.Stat()
		switch {
		case err != nil:
			rc.Close()
			return nil, errs.FromOS("open", src.Label, err, false)
		case fi.IsDir():
			rc.Close()
			return nil, errs.IsDir(src.Label, nil)
		case fi.Mode().IsRegular():
			regular, it.size = true, fi.Size()
		}
	}
	if it.f.MIMEType == "" {
		it.f.MIMEType = media.ByName(src.Name)
	}
	if regular && it.f.MIMEType != "" {
		rc.Close()
		return it, nil
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	head, err := br.Peek(uploadSniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		rc.Close()
		return nil, errs.FromOS("read", src.Label, err, false)
	}
	if it.f.MIMEType == "" {
		it.f.MIMEType = media.Sniff(head)
	}
	if regular {
		rc.Close()
	} else {
		it.stream, it.head = rc, br
	}
	return it, nil
}

// reader gives the bytes of a source from the start.
func (u *uploader) reader(it *sourceFile) (io.Reader, error) {
	if it.stream != nil {
		return it.head, nil
	}
	rc, err := it.src.Open()
	if err != nil {
		return nil, errs.FromOS("open", it.src.Label, err, false)
	}
	return rc, nil
}

// ---------------------------------------------------------------------------
// A message list: the last user message is the current turn.
// ---------------------------------------------------------------------------

func (u *uploader) messages(list *upload.Messages) (*UploadResult, error) {
	parts := list.Parts
	var err error
	accepted := make([]bool, len(parts))
	limits := make([]int64, len(parts))
	reasons := make([]string, len(parts)) // why a history file is not uploaded
	// The files of the current turn first, as sent: any failure stops the
	// turn before anything is written.
	for pass, current := range []bool{true, false} {
		for i, p := range parts {
			if p.Current != current {
				continue
			}
			if accepted[i], err = u.accept(p.File); err != nil {
				return nil, err
			}
		}
		for i, p := range parts {
			if p.Current != current || !accepted[i] {
				continue
			}
			if limits[i], err = u.limit(p.File); err != nil {
				return nil, err
			}
			if n := p.Data.EncodedSize(); n > limits[i] {
				if pass == 0 {
					return nil, uploadError(upload.TooLarge(p.File, n, limits[i]))
				}
				reasons[i] = upload.TooLarge(p.File, n, limits[i]).Message
			}
		}
		for i, p := range parts {
			if p.Current != current || !accepted[i] || reasons[i] != "" {
				continue
			}
			n, ok := p.Data.Check()
			var fl *upload.Failure
			switch {
			case !ok:
				fl = upload.InvalidFileData(p.File)
			case n > limits[i]:
				fl = upload.TooLarge(p.File, n, limits[i])
			}
			if fl != nil && pass == 0 {
				return nil, uploadError(fl)
			} else if fl != nil {
				reasons[i] = fl.Message
			}
		}
	}
	// Sandbox failures stop the turn only when it has a file to upload; a
	// thread history that can't be uploaded must never block the thread.
	stopOnFailure := false
	for i, p := range parts {
		stopOnFailure = stopOnFailure || p.Current && accepted[i]
	}
	staged := make([]*upload.Staged, len(parts))
	placed := make([]upload.Placed, len(parts))
	var tx *upload.Tx
	failure := func(err error) error {
		var orphans []string
		if tx != nil {
			orphans = tx.Rollback()
		}
		var we *errs.Error
		if !errors.As(err, &we) || we.Code != errs.UploadFailed {
			we = uploadError(upload.UploadFailed(err.Error(), nil))
		}
		var f *upload.Failure
		if errors.As(we, &f) {
			f.Meta.OrphanPaths = orphans
		}
		return we
	}
	var sandboxErr error
	func() {
		byContent := map[string]*upload.Staged{}
		for i, p := range parts {
			if !accepted[i] || reasons[i] != "" {
				continue
			}
			// Parts with the same bytes and extension share one copy.
			key := p.Data.Key()
			if key != "" {
				key += "\x00" + upload.SafeExtension(p.Name, p.MIMEType)
			}
			if st := byContent[key]; key != "" && st != nil {
				staged[i] = st
				continue
			}
			if tx == nil {
				var err error
				if tx, err = u.beginUpload(); err != nil {
					sandboxErr = err
					return
				}
			}
			st, err := tx.Stage(u.ctx, p.Data.Reader(), limits[i])
			if err != nil {
				sandboxErr = failure(txError(err))
				return
			}
			staged[i], byContent[key] = st, st
		}
		for i, p := range parts {
			if staged[i] == nil {
				continue
			}
			pf, err := tx.Place(staged[i], upload.SafeExtension(p.Name, p.MIMEType))
			if err != nil {
				sandboxErr = failure(txError(err))
				return
			}
			placed[i] = pf
		}
	}()
	if sandboxErr != nil {
		if stopOnFailure {
			return nil, sandboxErr
		}
		for i := range parts {
			if staged[i] != nil || accepted[i] && reasons[i] == "" {
				reasons[i], staged[i] = sandboxErr.Error(), nil
			}
		}
	} else if tx != nil {
		tx.Commit(u.w.now())
	}

	res := &UploadResult{Directory: u.dir, Files: []UploadedFile{}}
	notes := map[int]string{}
	for i, p := range parts {
		msg, part := p.Message, p.Index
		uf := UploadedFile{Name: upload.DisplayName(p.Name), FileName: p.Name, Type: media.Normalize(p.MIMEType),
			Message: &msg, Part: &part, Current: p.Current}
		switch {
		case !accepted[i]:
			uf.Status, uf.Reason = UploadStatusSkipped, skippedReason
		case reasons[i] != "":
			uf.Status, uf.Reason = UploadStatusRejected, reasons[i]
			uf.Note = upload.RejectedNote(p.Name, reasons[i])
			notes[i] = uf.Note
		default:
			u.uploaded(&uf, p.File, staged[i], placed[i])
			notes[i] = uf.Note
		}
		res.Files = append(res.Files, uf)
	}
	out, err := list.Rewrite(notes)
	if err != nil {
		return nil, errs.Internalf("messages: %v", err)
	}
	res.Messages, res.text = out, string(out)
	return res, nil
}

// uploadFault, when set (by tests), becomes each upload transaction's
// Fault: it may fail a step ("place", "cleanup") of the writing.
var uploadFault func(step, name string) error

// beginUpload starts the transaction that writes this call's files in its
// upload directory.
func (u *uploader) beginUpload() (*upload.Tx, error) {
	tx, err := upload.Begin(u.w.fs, u.dir)
	if err != nil {
		return nil, txError(err)
	}
	tx.Fault = uploadFault
	return tx, nil
}

// txError gives a failure of the upload transaction the coded form tools
// return; anything else (*upload.OverLimit, an internal error) is kept.
func txError(err error) error {
	var f *upload.Failure
	if errors.As(err, &f) {
		return uploadError(f)
	}
	return err
}
