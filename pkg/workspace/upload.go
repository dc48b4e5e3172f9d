package workspace

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/upload"
	"golang.org/x/sys/unix"
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
	staged *stagedFile
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
	var tx *uploadTx
	fail := func(err error) (*UploadResult, error) {
		if tx == nil {
			return nil, err
		}
		orphans := tx.rollback()
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
			if tx, err = u.w.beginUpload(u.dir); err != nil {
				return nil, err
			}
		}
		r, err := u.reader(it)
		if err != nil {
			return fail(err)
		}
		st, err := tx.stage(u.ctx, r, it.limit)
		if it.stream == nil {
			r.(io.Closer).Close()
		}
		var over *overLimit
		switch {
		case errors.As(err, &over):
			return fail(uploadError(upload.TooLarge(it.f, over.size, it.limit)))
		case err != nil:
			return fail(err)
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
			p, err := tx.place(it.staged, upload.SafeExtension(it.f.Name, it.f.MIMEType))
			if err != nil {
				return fail(err)
			}
			u.uploaded(&uf, it.f, it.staged, p)
		}
		res.Files = append(res.Files, uf)
		notes = append(notes, uf.Note)
	}
	if tx != nil {
		tx.commit()
	}
	res.text = strings.Join(notes, "\n\n")
	return res, nil
}

// skippedReason says why a file the filter did not accept has no upload.
const skippedReason = "left to the model by the upload filter"

// uploaded fills in the entry of a placed file.
func (u *uploader) uploaded(uf *UploadedFile, f upload.File, st *stagedFile, p placedFile) {
	size := st.size
	uf.Status, uf.Size, uf.SHA256 = UploadStatusUploaded, &size, st.hash
	uf.RelPath, uf.Path, uf.Written = p.rel, p.abs, p.written
	uf.Note = upload.UploadedNote(p.abs, f.Name, f.MIMEType, st.size)
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
	staged := make([]*stagedFile, len(parts))
	placed := make([]placedFile, len(parts))
	var tx *uploadTx
	failure := func(err error) error {
		var orphans []string
		if tx != nil {
			orphans = tx.rollback()
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
		byContent := map[string]*stagedFile{}
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
				if tx, err = u.w.beginUpload(u.dir); err != nil {
					sandboxErr = err
					return
				}
			}
			st, err := tx.stage(u.ctx, p.Data.Reader(), limits[i])
			if err != nil {
				sandboxErr = failure(err)
				return
			}
			staged[i], byContent[key] = st, st
		}
		for i, p := range parts {
			if staged[i] == nil {
				continue
			}
			pf, err := tx.place(staged[i], upload.SafeExtension(p.Name, p.MIMEType))
			if err != nil {
				sandboxErr = failure(err)
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
		tx.commit()
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

// ---------------------------------------------------------------------------
// Writing: stage every file under a temporary name, then place them.
// ---------------------------------------------------------------------------

// uploadFault, when set (by tests), may fail a step of an upload: "place"
// before a file is renamed into place, "cleanup" before a placed file is
// removed again. name is the file's name in the upload directory.
var uploadFault func(step, name string) error

// uploadTx is one call's writes in its upload directory: the temporary
// files staged and the files placed, so that a failure can take back
// exactly what this call wrote.
type uploadTx struct {
	w       *Workspace
	rel     string // the directory, relative to the root
	abs     string // the directory in the sandbox working directory
	dirfd   int
	temps   map[string]*os.File // staged, not yet placed or removed; locked while open
	written []string            // names placed by this call
	placed  map[string]placedFile
	mode    uint32
	created []fsroot.Loc // directories this call created, deepest first
}

// stagedFile is a file's content in a temporary file of the upload directory.
type stagedFile struct {
	tmp  string
	size int64
	hash string
}

// placedFile is where a file's content is.
type placedFile struct {
	rel, abs string
	written  bool // false: the same content was already in place
}

// beginUpload creates the upload directory beneath the root (through
// Resolve, like any path ws writes) and opens it.
func (w *Workspace) beginUpload(rel string) (*uploadTx, error) {
	wd, err := w.commandCwd("")
	if err != nil {
		return nil, uploadError(upload.UploadFailed(err.Error(), nil))
	}
	t, err := w.fs.Resolve(rel)
	if err != nil {
		return nil, uploadError(upload.UploadFailed(err.Error(), nil))
	}
	// The directories this call creates go again if it fails.
	var created []fsroot.Loc
	for l := t.Loc(); l.Sub() != "." && l.Sub() != ""; l, _ = l.Parent() {
		if _, err := w.fs.Lstat(l); err == nil {
			break
		}
		created = append(created, l)
	}
	if err := w.fs.MkdirAll(t.Loc()); err != nil {
		if err == unix.EEXIST {
			err = unix.ENOTDIR
		}
		return nil, uploadError(upload.UploadFailed(errs.FromOS("mkdir", rel, err, true).Error(), nil))
	}
	fd, err := w.fs.Open(t.Loc(), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, uploadError(upload.UploadFailed(errs.FromOS("open", rel, err, true).Error(), nil))
	}
	return &uploadTx{w: w, rel: rel, abs: filepath.Join(wd, filepath.FromSlash(rel)), dirfd: fd, created: created,
		temps: map[string]*os.File{}, placed: map[string]placedFile{}, mode: 0o666 &^ fsroot.Umask()}, nil
}

// overLimit reports a file that turned out larger than its limit while it
// was read; size is its whole size.
type overLimit struct{ size int64 }

func (e *overLimit) Error() string { return fmt.Sprintf("over the limit (%d bytes)", e.size) }

// stage copies r into a new temporary file of the directory, hashing it on
// the way. More than limit bytes stops the copy with *overLimit (r is still
// read to its end, to report its size). The copy is made durable only when
// it is placed: one that turns out to be there already is dropped unsynced.
func (tx *uploadTx) stage(ctx context.Context, r io.Reader, limit int64) (*stagedFile, error) {
	tmp := fsroot.NewTempName()
	fd, err := unix.Openat(tx.dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, uploadError(upload.UploadFailed(tx.errText("create", tmp, err), nil))
	}
	_ = unix.Flock(fd, unix.LOCK_EX) // a concurrent ws never takes it for a stale leftover
	f := os.NewFile(uintptr(fd), tmp)
	tx.temps[tmp] = f
	h := sha256.New()
	size, err := copyHashed(ctx, f, h, r, limit)
	if err != nil {
		var over *overLimit
		if errors.As(err, &over) {
			return nil, err
		}
		return nil, uploadError(upload.UploadFailed(tx.errText("write", tmp, err), nil))
	}
	if err := unix.Fchmod(fd, tx.mode); err != nil {
		return nil, uploadError(upload.UploadFailed(tx.errText("chmod", tmp, err), nil))
	}
	return &stagedFile{tmp: tmp, size: size, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// copyBufSize is the chunk size of uploads.
const copyBufSize = 1 << 20

// copyHashed copies r to f and into h, in constant memory: the hash of one
// chunk runs while the previous chunk is written. It stops at limit bytes.
func copyHashed(ctx context.Context, f *os.File, h hash.Hash, r io.Reader, limit int64) (int64, error) {
	bufs := make(chan []byte, 2)
	bufs <- make([]byte, copyBufSize)
	bufs <- make([]byte, copyBufSize)
	writes := make(chan []byte, 1)
	werr := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		var err error
		for b := range writes {
			if err == nil {
				if _, err = f.Write(b); err != nil {
					failed.Store(true)
				}
			}
			bufs <- b[:cap(b)]
		}
		werr <- err
	}()
	var size int64
	var rerr error
	for !failed.Load() {
		if err := ctx.Err(); err != nil {
			rerr = err
			break
		}
		b := <-bufs
		n, err := io.ReadFull(r, b)
		if n > 0 {
			size += int64(n)
			if size > limit {
				bufs <- b
				rest, derr := io.Copy(io.Discard, r)
				if derr == nil {
					derr = &overLimit{size: size + rest}
				}
				rerr = derr
				break
			}
			h.Write(b[:n])
			writes <- b[:n]
		} else {
			bufs <- b
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			rerr = err
			break
		}
	}
	close(writes)
	if err := <-werr; rerr == nil {
		rerr = err
	}
	return size, rerr
}

// place renames a staged file into place as <hash>.<ext>. A file already
// there is trusted only when its size and hash match (then the staged copy
// is dropped); anything else there is replaced. A file another process
// places meanwhile is never clobbered (RENAME_NOREPLACE) unless it turns
// out not to hold the content.
func (tx *uploadTx) place(st *stagedFile, ext string) (placedFile, error) {
	name := upload.FileName(st.hash, ext)
	if p, ok := tx.placed[name]; ok {
		tx.drop(st.tmp)
		return p, nil
	}
	p := placedFile{rel: tx.rel + "/" + name, abs: filepath.Join(tx.abs, name)}
	if uploadFault != nil {
		if err := uploadFault("place", name); err != nil {
			return p, uploadError(upload.UploadFailed(tx.errText("rename", name, err), nil))
		}
	}
	for attempt := 0; ; attempt++ {
		if tx.holds(name, st) {
			tx.drop(st.tmp)
			break
		}
		if attempt == 0 {
			f := tx.temps[st.tmp]
			if f == nil {
				return p, errs.Internalf("upload: %s placed twice", st.tmp)
			}
			if err := f.Sync(); err != nil {
				return p, uploadError(upload.UploadFailed(tx.errText("fsync", st.tmp, err), nil))
			}
		}
		var err error
		if attempt == 0 {
			err = renameNoReplace(tx.dirfd, st.tmp, name)
		} else {
			err = unix.Renameat(tx.dirfd, st.tmp, tx.dirfd, name)
		}
		if err == unix.EEXIST && attempt == 0 {
			continue // placed meanwhile: check what is there
		}
		if err != nil {
			return p, uploadError(upload.UploadFailed(tx.errText("rename", name, err), nil))
		}
		tx.closeTemp(st.tmp)
		p.written = true
		tx.written = append(tx.written, name)
		break
	}
	tx.placed[name] = p
	return p, nil
}

// renameNoReplace renames without replacing an existing name.
func renameNoReplace(dirfd int, from, to string) error {
	err := unix.Renameat2(dirfd, from, dirfd, to, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		// Filesystems without RENAME_NOREPLACE: link(2) also refuses to replace.
		if err = unix.Linkat(dirfd, from, dirfd, to, 0); err == nil {
			unix.Unlinkat(dirfd, from, 0)
		}
	}
	return err
}

// holds reports whether name is a regular file with the staged content:
// same size, same SHA-256.
func (tx *uploadTx) holds(name string, st *stagedFile) bool {
	fd, err := unix.Openat(tx.dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != st.size {
		return false
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, copyBufSize)); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == st.hash
}

// drop removes a staged temporary file that is not needed.
func (tx *uploadTx) drop(tmp string) {
	unix.Unlinkat(tx.dirfd, tmp, 0)
	tx.closeTemp(tmp)
}

func (tx *uploadTx) closeTemp(tmp string) {
	if f := tx.temps[tmp]; f != nil {
		f.Close()
	}
	delete(tx.temps, tmp)
}

// commit makes the renames durable and tidies up.
func (tx *uploadTx) commit() {
	_ = unix.Fsync(tx.dirfd)
	for tmp := range tx.temps {
		tx.drop(tmp)
	}
	fsroot.RemoveStaleTemps(tx.dirfd, tx.w.now())
	unix.Close(tx.dirfd)
}

// rollback takes back what this call wrote: its temporary files and the
// files it placed. It returns the placed paths it could not remove.
func (tx *uploadTx) rollback() []string {
	for tmp := range tx.temps {
		tx.drop(tmp)
	}
	var orphans []string
	for _, name := range tx.written {
		var err error
		if uploadFault != nil {
			err = uploadFault("cleanup", name)
		}
		if err == nil {
			err = unix.Unlinkat(tx.dirfd, name, 0)
		}
		if err != nil && err != unix.ENOENT {
			orphans = append(orphans, filepath.Join(tx.abs, name))
		}
	}
	tx.written = nil
	_ = unix.Fsync(tx.dirfd)
	unix.Close(tx.dirfd)
	if len(orphans) == 0 {
		for _, d := range tx.created {
			if tx.w.rmdirIn(d) != nil {
				break // not empty: someone else uses it now
			}
		}
	}
	return orphans
}

// rmdirIn removes the empty directory l.
func (w *Workspace) rmdirIn(l fsroot.Loc) error {
	p, name := l.Parent()
	pfd, err := w.fs.Open(p, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
}

// errText describes a failed step without absolute paths.
func (tx *uploadTx) errText(op, name string, err error) string {
	return op + " " + tx.rel + "/" + name + ": " + errs.Errno(err)
}
