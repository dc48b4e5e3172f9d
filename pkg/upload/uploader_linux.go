package upload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/statefile"
)

// Source is one file handed to upload by the caller (a path on the
// command line, or stdin).
type Source struct {
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

// Request is the input of upload, Mastra's FileUploadProcessor as a
// command. Either Files (each one sent now: any failure stops the turn) or
// Messages (a message list whose last user message is the current turn).
type Request struct {
	Files    []Source
	Messages []byte
	// Resource names the upload directory when there is no thread.
	Resource string
	// Include, Exclude and MaxSize, when not nil, replace the policy's
	// (MaxSize also replaces its MaxSizeCommand). Syntax: ParsePatterns
	// and ParseLimits.
	Include, Exclude, MaxSize []string
}

// Result is the outcome of upload: one entry per file considered, in
// order, and in messages mode the rewritten list.
type Result struct {
	// Directory is the upload directory, relative to the workspace root.
	Directory string    `json:"directory"`
	Files     []Outcome `json:"files"`
	// Messages is the rewritten message list (messages mode only).
	Messages json.RawMessage `json:"messages,omitempty"`
	text     string
}

// Text is what the model is shown: the notes that replace the files, or
// in messages mode the rewritten list.
func (r *Result) Text() string { return r.text }

// Upload statuses.
const (
	StatusUploaded = "uploaded" // placed (or already there with the same content)
	StatusSkipped  = "skipped"  // left to the model by the filter
	StatusRejected = "rejected" // a history file that could not be uploaded
)

// Outcome is what became of one file.
type Outcome struct {
	Status string `json:"status"`
	// Name is the display name; FileName the name as sent ("" for none),
	// its bytes kept in JSON ({"bytes": base64} when not UTF-8).
	Name     string           `json:"name"`
	FileName statefile.String `json:"file_name,omitempty"`
	Type     string           `json:"type"`
	Size     *int64           `json:"size,omitempty"`
	SHA256   string           `json:"sha256,omitempty"`
	// Path is where the file was placed (absolute); RelPath the same,
	// relative to the workspace root.
	Path    string `json:"path,omitempty"`
	RelPath string `json:"rel_path,omitempty"`
	// Written is false when the same content was already in place.
	Written bool   `json:"written"`
	Reason  string `json:"reason,omitempty"`
	// Message and Part locate the file part in a message list (Part is -1
	// when the message content is the part itself); Attachment, in place of
	// Part, a file that is only an attachment of a message as Mastra stores it.
	Message    *int `json:"message,omitempty"`
	Part       *int `json:"part,omitempty"`
	Attachment *int `json:"attachment,omitempty"`
	// Current marks a file of the current turn, the last user message
	// (messages mode; on the command line every file is of the current turn).
	Current bool   `json:"current,omitempty"`
	Note    string `json:"note"`
}

// Policy is which files go and how large they may be, as the config's
// upload section gives it. A Request's Include, Exclude and MaxSize
// replace the matching fields for one call.
type Policy struct {
	Include, Exclude []string // patterns: ParsePatterns
	MaxSize          []string // limits: ParseLimits
	// FilterCommand answers true or false for a file's info (FileInfo as
	// one line of JSON on stdin); nil: every file the patterns let through.
	FilterCommand []string
	// MaxSizeCommand answers a file's limit in bytes, in place of MaxSize.
	MaxSizeCommand []string
}

// CommandFunc runs one of the policy's helper commands. name is its config
// key ("upload.filterCommand", "upload.maxSizeCommand"), stdin what it
// reads. It returns what the command printed on stdout; an error says why
// the command did not answer.
type CommandFunc func(ctx context.Context, name string, argv []string, stdin []byte) ([]byte, error)

// Uploader is Mastra's FileUploadProcessor over one workspace's sandbox:
// it applies the policy to a request's files, writes the ones that go with
// a Tx, and gives each file's note.
//
// Upload's errors are *Failure values for the reasons Mastra stops a turn
// (the caller gives them its own coded form); anything else is an
// *errs.Error: a bad policy or message list (INVALID_ARGUMENT), a source
// that cannot be opened or read.
type Uploader struct {
	Policy Policy
	// FS is the workspace filesystem the files are written through.
	FS *fsroot.FS
	// Thread names the upload directory; "" for none (the request's
	// Resource names it then, else SharedDir).
	Thread string
	// SandboxDisabled is set when the workspace has no sandbox: a call
	// fails with NO_SANDBOX once its request is checked.
	SandboxDisabled bool
	// Run runs FilterCommand and MaxSizeCommand.
	Run CommandFunc
	// Now is the clock (stale temporary files are found by their age).
	Now func() time.Time
	// Fault, when not nil (tests set it), becomes each Tx's Fault.
	Fault func(step, name string) error
}

// Upload places files in the sandbox working directory (the workspace
// root) at uploads/<dir>/<sha256>.<ext> and gives, for each one, the note
// that replaces it in the prompt. Files are hashed and copied in one pass
// into hidden temporary files, then renamed into place; a file already in
// place is kept when its size and hash match. When the turn stops, what
// this call wrote is removed again, and the failure carries Mastra's
// tripwire metadata.
func (u *Uploader) Upload(ctx context.Context, req Request) (*Result, error) {
	pol, err := u.Policy.apply(req)
	if err != nil {
		return nil, err
	}
	var list *Messages
	if req.Messages != nil {
		if list, err = ParseMessages(req.Messages); err != nil {
			return nil, errs.Invalid("--messages", err.Error()) // the subcommand's alone
		}
	}
	if u.SandboxDisabled {
		return nil, NoSandbox()
	}
	c := &call{Uploader: u, ctx: ctx, pol: pol, dir: UploadsDir + "/" + Directory(u.Thread, req.Resource)}
	var res *Result
	if list != nil {
		res, err = c.messages(list)
	} else {
		res, err = c.files(req.Files)
	}
	stopped := err != nil && ctx.Err() != nil
	if stopped {
		err = context.Cause(ctx)
	}
	if stopped || signalOf(err) != nil {
		// Stopped from outside (a signal to ws): not a tripwire of the
		// turn, and the caller must see why (ws exits as the signal asks).
		// Coded as every wait ws cuts short when asked to stop.
		return nil, errs.Coded(errs.Timeout, err)
	}
	return res, err
}

// policy is the filter and the size limits in effect for one call.
type policy struct {
	sel       Selector
	limits    Limits
	filterCmd []string
	sizeCmd   []string
}

// apply gives p with req's replacements, parsed.
func (p Policy) apply(req Request) (*policy, error) {
	include, exclude, maxSize, sizeCmd := p.Include, p.Exclude, p.MaxSize, p.MaxSizeCommand
	if req.Include != nil {
		include = req.Include
	}
	if req.Exclude != nil {
		exclude = req.Exclude
	}
	if req.MaxSize != nil {
		maxSize, sizeCmd = req.MaxSize, nil
	}
	pol := &policy{filterCmd: p.FilterCommand, sizeCmd: sizeCmd}
	var err error
	if pol.sel.Include, err = ParsePatterns(include); err != nil {
		return nil, errs.Invalid("upload.include", err.Error())
	}
	if pol.sel.Exclude, err = ParsePatterns(exclude); err != nil {
		return nil, errs.Invalid("upload.exclude", err.Error())
	}
	if pol.limits, err = ParseLimits(maxSize); err != nil {
		return nil, errs.Invalid("upload.maxSize", err.Error())
	}
	return pol, nil
}

// call is one upload call.
type call struct {
	*Uploader
	ctx context.Context
	pol *policy
	dir string // uploads/<dir>, relative to the root
}

// accept is the filter: include/exclude patterns, then FilterCommand.
func (c *call) accept(f File) (bool, error) {
	info := InfoOf(f)
	if !c.pol.sel.Accepts(info) {
		return false, nil
	}
	if len(c.pol.filterCmd) == 0 {
		return true, nil
	}
	out, err := c.command("upload.filterCommand", c.pol.filterCmd, info)
	if err != nil {
		if sig := signalOf(err); sig != nil {
			return false, sig
		}
		return false, InvalidFilter(f, err.Error())
	}
	switch out {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, InvalidFilter(f, answerText(out))
}

// limit is a file's size limit: the request's MaxSize rules, else
// MaxSizeCommand, else the policy's rules, else 10 MiB.
func (c *call) limit(f File) (int64, error) {
	info := InfoOf(f)
	if len(c.pol.sizeCmd) == 0 {
		return c.pol.limits.For(info), nil
	}
	out, err := c.command("upload.maxSizeCommand", c.pol.sizeCmd, info)
	if err != nil {
		if sig := signalOf(err); sig != nil {
			return 0, sig
		}
		return 0, InvalidMaxFileSize(f, err.Error())
	}
	var n float64
	if json.Unmarshal([]byte(out), &n) != nil || strings.HasPrefix(out, "\"") || !(n >= 0) {
		return 0, InvalidMaxFileSize(f, answerText(out))
	}
	if n >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(n), nil // a whole number of bytes is over x exactly when it is over floor(x)
}

// signalOf is the signal to ws that stopped a helper command, if any:
// then the command did not fail of its own, and ws must stop too (the
// runner may see the signal before the call's context is cancelled).
func signalOf(err error) error {
	var sig *runner.SignalError
	if errors.As(err, &sig) {
		return sig
	}
	return nil
}

// answerText quotes a command's answer in a cause.
func answerText(out string) string {
	if out == "" {
		return "(no answer)"
	}
	return wording.Excerpt(out, 200)
}

// command runs a helper command with a file's info as one line of JSON on
// stdin and returns what it printed, trimmed.
func (c *call) command(name string, argv []string, info FileInfo) (string, error) {
	in, err := json.Marshal(info)
	if err != nil {
		return "", err
	}
	out, err := c.Run(c.ctx, name, argv, append(in, '\n')) // one line, for line-oriented shell filters
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ---------------------------------------------------------------------------
// Files from the command line: all of the current turn.
// ---------------------------------------------------------------------------

// sourceFile is a command-line file on its way to the sandbox.
type sourceFile struct {
	src    Source
	f      File
	size   int64         // -1 until known
	stream io.ReadCloser // kept open: a source that can be read only once
	head   *bufio.Reader // reads stream from its start
	ok     bool          // accepted by the filter
	limit  int64
	staged *Staged
}

// sniffLen bytes of a source decide its type when neither the caller
// nor the name gives one (mimetype reads no further).
const sniffLen = 3072

func (c *call) files(srcs []Source) (*Result, error) {
	items := make([]*sourceFile, len(srcs))
	defer func() {
		for _, it := range items {
			if it != nil && it.stream != nil {
				it.stream.Close()
			}
		}
	}()
	for i, src := range srcs {
		it, err := openSource(src)
		if err != nil {
			return nil, err
		}
		items[i] = it
	}
	// As Mastra: the filter for every file, then every limit, then sizes.
	for _, it := range items {
		ok, err := c.accept(it.f)
		if err != nil {
			return nil, err
		}
		it.ok = ok
	}
	for _, it := range items {
		if !it.ok {
			continue
		}
		limit, err := c.limit(it.f)
		if err != nil {
			return nil, err
		}
		it.limit = limit
		if it.size > limit {
			return nil, TooLarge(it.f, it.size, limit)
		}
	}
	var tx *Tx
	fail := func(err error) (*Result, error) {
		if tx == nil {
			return nil, err
		}
		orphans := tx.Rollback()
		var f *Failure
		if errors.As(err, &f) && f.Code == CodeUploadFailed {
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
			if tx, err = c.begin(); err != nil {
				return nil, err
			}
		}
		r, err := c.reader(it)
		if err != nil {
			return fail(err)
		}
		st, err := tx.Stage(c.ctx, r, it.limit)
		if it.stream == nil {
			r.(io.Closer).Close()
		}
		var over *OverLimit
		switch {
		case errors.As(err, &over):
			return fail(TooLarge(it.f, over.Size, it.limit))
		case err != nil:
			return fail(err)
		}
		it.staged = st
	}
	res := &Result{Directory: c.dir, Files: []Outcome{}}
	notes := make([]string, 0, len(items))
	for _, it := range items {
		uf := Outcome{Name: DisplayName(it.f.Name), FileName: statefile.String(it.f.Name), Type: media.Normalize(it.f.MIMEType)}
		if !it.ok {
			uf.Status, uf.Reason = StatusSkipped, skippedReason
			uf.Note = RejectedNote(it.f.Name, skippedReason)
		} else {
			p, err := tx.Place(it.staged, SafeExtension(it.f.Name, it.f.MIMEType))
			if err != nil {
				return fail(err)
			}
			c.uploaded(&uf, it.f, it.staged, p)
		}
		res.Files = append(res.Files, uf)
		notes = append(notes, uf.Note)
	}
	if tx != nil {
		tx.Commit(c.Now())
	}
	res.text = strings.Join(notes, "\n\n")
	return res, nil
}

// skippedReason says why a file the filter did not accept has no upload.
const skippedReason = "left to the model by the upload filter"

// uploaded fills in the entry of a placed file.
func (c *call) uploaded(uf *Outcome, f File, st *Staged, p Placed) {
	size := st.Size
	uf.Status, uf.Size, uf.SHA256 = StatusUploaded, &size, st.Hash
	uf.RelPath, uf.Path, uf.Written = p.Rel, p.Abs, p.Written
	uf.Note = UploadedNote(p.Abs, f.Name, f.MIMEType, st.Size)
}

// openSource opens a command-line source and works out its type and, for a
// regular file, its size.
func openSource(src Source) (*sourceFile, error) {
	it := &sourceFile{src: src, f: File{Name: src.Name, MIMEType: src.MIMEType}, size: -1}
	rc, err := src.Open()
	if err != nil {
		return nil, sourceError("open", src.Label, err)
	}
	regular := false
	// A file, or what stands for one (a local file of ws --remote, whose
	// bytes cross only when read: an upload it refuses never sends them).
	if f, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err := f.Stat()
		switch {
		case err != nil:
			rc.Close()
			return nil, sourceError("open", src.Label, err)
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
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		rc.Close()
		return nil, sourceError("read", src.Label, err)
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

// sourceError is a source's failure to open or be read, with Mastra's
// message where there is one. A source is the caller's own file, not a
// workspace path: a symlink loop is just that, not an escape from the
// workspace.
func sourceError(op, label string, err error) error {
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) {
		return errs.IOFailed(op, label, err)
	}
	return errs.FromOS(op, label, err, false)
}

// reader gives the bytes of a source from the start.
func (c *call) reader(it *sourceFile) (io.Reader, error) {
	if it.stream != nil {
		return it.head, nil
	}
	rc, err := it.src.Open()
	if err != nil {
		return nil, sourceError("open", it.src.Label, err)
	}
	return rc, nil
}

// ---------------------------------------------------------------------------
// A message list: the last user message is the current turn.
// ---------------------------------------------------------------------------

func (c *call) messages(list *Messages) (*Result, error) {
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
			if accepted[i], err = c.accept(p.File); err != nil {
				return nil, err
			}
		}
		for i, p := range parts {
			if p.Current != current || !accepted[i] {
				continue
			}
			if limits[i], err = c.limit(p.File); err != nil {
				return nil, err
			}
			if n := p.Data.EncodedSize(); n > limits[i] {
				if pass == 0 {
					return nil, TooLarge(p.File, n, limits[i])
				}
				reasons[i] = TooLarge(p.File, n, limits[i]).Message
			}
		}
		for i, p := range parts {
			if p.Current != current || !accepted[i] || reasons[i] != "" {
				continue
			}
			n, ok := p.Data.Check()
			var fl *Failure
			switch {
			case !ok:
				fl = InvalidFileData(p.File)
			case n > limits[i]:
				fl = TooLarge(p.File, n, limits[i])
			}
			if fl != nil && pass == 0 {
				return nil, fl
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
	staged := make([]*Staged, len(parts))
	placed := make([]Placed, len(parts))
	var tx *Tx
	failure := func(err error) error {
		var orphans []string
		if tx != nil {
			orphans = tx.Rollback()
		}
		var f *Failure
		if !errors.As(err, &f) || f.Code != CodeUploadFailed {
			f = UploadFailed(err.Error(), nil)
		}
		f.Meta.OrphanPaths = orphans
		return f
	}
	var sandboxErr error
	func() {
		byContent := map[string]*Staged{}
		for i, p := range parts {
			if !accepted[i] || reasons[i] != "" {
				continue
			}
			// Parts with the same bytes and extension share one copy.
			key := p.Data.Key()
			if key != "" {
				key += "\x00" + SafeExtension(p.Name, p.MIMEType)
			}
			if st := byContent[key]; key != "" && st != nil {
				staged[i] = st
				continue
			}
			if tx == nil {
				var err error
				if tx, err = c.begin(); err != nil {
					sandboxErr = err
					return
				}
			}
			st, err := tx.Stage(c.ctx, p.Data.Reader(), limits[i])
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
			pf, err := tx.Place(staged[i], SafeExtension(p.Name, p.MIMEType))
			if err != nil {
				sandboxErr = failure(err)
				return
			}
			placed[i] = pf
		}
	}()
	if sandboxErr != nil {
		if stopOnFailure || c.ctx.Err() != nil {
			return nil, sandboxErr
		}
		for i := range parts {
			if staged[i] != nil || accepted[i] && reasons[i] == "" {
				reasons[i], staged[i] = sandboxErr.Error(), nil
			}
		}
	} else if tx != nil {
		tx.Commit(c.Now())
	}

	res := &Result{Directory: c.dir, Files: []Outcome{}}
	notes := map[int]string{}
	for i, p := range parts {
		msg, part, att := p.Message, p.Index, p.Attachment
		uf := Outcome{Name: DisplayName(p.Name), FileName: statefile.String(p.Name), Type: media.Normalize(p.MIMEType),
			Message: &msg, Part: &part, Current: p.Current}
		if att >= 0 {
			uf.Part, uf.Attachment = nil, &att
		}
		switch {
		case !accepted[i]:
			uf.Status, uf.Reason = StatusSkipped, skippedReason
		case reasons[i] != "":
			uf.Status, uf.Reason = StatusRejected, reasons[i]
			uf.Note = RejectedNote(p.Name, reasons[i])
			notes[i] = uf.Note
		default:
			c.uploaded(&uf, p.File, staged[i], placed[i])
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

// begin starts the transaction that writes this call's files in its
// upload directory.
func (c *call) begin() (*Tx, error) {
	tx, err := Begin(c.FS, c.dir)
	if err != nil {
		return nil, err
	}
	tx.Fault = c.Fault
	return tx, nil
}
