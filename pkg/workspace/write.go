package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/udiff"
	"golang.org/x/sys/unix"
)

// WriteResult is the outcome of write.
type WriteResult struct {
	Path   Bytes `json:"path"`
	Bytes  int   `json:"bytes"`
	DryRun bool  `json:"dry_run,omitempty"`
	Diff   Bytes `json:"diff,omitempty"` // with --dry-run: what the write would change ({"bytes"} when not UTF-8)
	textOut
}

// Write replaces (or creates) a file atomically. The version it replaces
// is kept for undo. Content from req.Source is streamed into the file: no
// work per byte beyond copying it (and fingerprinting it for the history
// when it is small enough to be kept).
func (w *Workspace) Write(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	t, g, err := w.resolveGuarded(req.Path, WriteFile)
	if err != nil {
		return nil, err
	}
	defer g.release()
	noReplace := req.Overwrite != nil && !*req.Overwrite
	if req.DryRun {
		if err := req.loadSource(); err != nil {
			return nil, errs.Wrap(err)
		}
		return w.dryWrite(t, g, []byte(req.Content), noReplace)
	}
	// A special file (a FIFO) has no previous version to keep; writeFile
	// refuses it anyway.
	var changes []history.Change
	made := 0 // the directories the write makes for a new file
	if before, err := w.stateAt(g.loc, w.keepLimit()); err == nil {
		if before.Kind == history.KindAbsent {
			made = missingDirs(g.real)
		}
		changes = append(changes, history.Change{Key: g.real, Path: string(t.Rel()), Before: before, MadeDirs: made})
	}
	rec := w.record(history.OpWrite, changes...)
	src := &content{ctx: ctx, r: req.Source, keep: w.keepLimit()}
	if req.Source == nil {
		src.r = strings.NewReader(req.Content)
	}
	st, err := w.writeFile(ctx, t, g, src, noReplace)
	rec.done(err, src.print(st))
	if err != nil {
		// A write that failed leaves nothing: not the directories it
		// made either.
		w.removeMadeDirs(g.real, string(t.Rel()), made)
		return nil, err
	}
	return &WriteResult{Path: Bytes(req.Path), Bytes: int(src.n),
		textOut: textOut{fmt.Sprintf("Wrote %d bytes to %s", src.n, req.Path)}}, nil
}

// loaded is the request with its streamed content read in full.
func (req WriteRequest) loaded() (any, error) {
	err := req.loadSource()
	return req, err
}

// loadSource reads req.Source into req.Content, for what needs the whole
// content at once (a dry run's diff, the arguments shown to hooks and to
// an approver).
func (req *WriteRequest) loadSource() error {
	if req.Source == nil {
		return nil
	}
	data, err := io.ReadAll(req.Source)
	req.Content, req.Source = string(data), nil
	return err
}

// content is the bytes of a write on their way into the file: copied from
// r, counted, and kept while they are within keep, for the history's
// fingerprint (a file over keep is fingerprinted by its size alone).
type content struct {
	ctx  context.Context // the copy stops between chunks when it ends (nil: never)
	r    io.Reader
	keep int64
	n    int64
	head []byte // all of the content when n <= keep

	primed    []byte // the first bytes of a stream, read by Prime
	primedEOF bool   // the stream ended within them
}

// primeSize is the most Prime reads.
const primeSize = 64 << 10

// Prime waits for the first bytes of content that comes from a stream (a
// pipe, a terminal, a socket), before the file's temporary file is made:
// a writer stopped while it waits for its input (a signal, a timeout)
// leaves nothing behind. Content of known size needs no wait.
func (c *content) Prime() error {
	if _, ok := remaining(c.r); ok {
		return nil
	}
	buf := make([]byte, primeSize)
	for {
		n, err := c.r.Read(buf)
		switch {
		case n > 0 || err == io.EOF:
			c.primed, c.primedEOF = buf[:n], err == io.EOF
			return nil
		case err != nil:
			return err
		}
	}
}

// copyChunk is the size of the reads and writes of a write, dd's bs=4M.
const copyChunk = 4 << 20

// WriteTo copies the content to dst in chunks of up to copyChunk bytes,
// each read filled before it is written (a pipe gives at most 64 KiB a
// read). The chunks are read into one buffer, one after the other, for as
// long as the content may be kept: the head is kept without a copy. After
// that the buffer's start takes each further chunk.
func (c *content) WriteTo(dst io.Writer) (int64, error) {
	if f, ok := c.r.(*os.File); ok {
		growPipe(f)
	}
	if n, ok := remaining(c.r); ok && n > c.keep {
		if f, ok := c.r.(*os.File); ok {
			if to, ok := dst.(*os.File); ok {
				// File to file: the kernel copies (copy_file_range), no
				// byte passes through ws.
				var err error
				c.n, err = to.ReadFrom(f)
				return c.n, err
			}
		}
	}
	buf := make([]byte, c.bufSize())
	off, rolling := 0, false
	if len(c.primed) > 0 || c.primedEOF {
		// What Prime read comes first (bufSize leaves room for it).
		off = copy(buf, c.primed)
		w, err := dst.Write(buf[:off])
		c.n += int64(w)
		c.primed = nil
		switch {
		case err != nil:
			return c.n, err
		case c.primedEOF:
			if c.n <= c.keep {
				c.head = buf[:c.n]
			}
			return c.n, nil
		}
	}
	for {
		if err := c.err(); err != nil {
			return c.n, err
		}
		end := min(off+copyChunk, len(buf))
		n, rerr := io.ReadFull(c.r, buf[off:end])
		w, err := dst.Write(buf[off : off+n])
		c.n += int64(w)
		if err != nil {
			return c.n, err
		}
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			if !rolling && c.n <= c.keep {
				c.head = buf[:c.n]
			}
			return c.n, nil
		case rerr != nil:
			return c.n, rerr
		}
		if off += n; off == len(buf) {
			off, rolling = 0, true
			if done, err := c.splice(dst); done {
				return c.n, err
			}
		}
	}
}

// err is the error of the content's context, once it has ended.
func (c *content) err() error {
	if c.ctx == nil {
		return nil
	}
	return c.ctx.Err()
}

// growPipe asks for a 1 MiB buffer when f is a pipe (Linux gives 64 KiB):
// the writer then fills it in fewer, bigger steps. Best effort.
func growPipe(f *os.File) {
	if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	}
}

// splice moves the rest of a pipe into the file dst inside the kernel
// (splice(2)), once nothing more is kept. done is false when it cannot
// (r is not a pipe, or the file system refuses) and nothing was moved.
func (c *content) splice(dst io.Writer) (done bool, err error) {
	src, ok := c.r.(*os.File)
	to, ok2 := dst.(*os.File)
	if !ok || !ok2 {
		return false, nil
	}
	if st, err := src.Stat(); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return false, nil
	}
	in, out := int(src.Fd()), int(to.Fd())
	for moved := false; ; {
		if err := c.err(); err != nil {
			return true, err
		}
		n, err := unix.Splice(in, nil, out, nil, copyChunk, unix.SPLICE_F_MOVE|unix.SPLICE_F_MORE)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil && !moved:
			return false, nil
		case err != nil:
			return true, err
		case n == 0:
			return true, nil
		}
		c.n += n
		moved = true
	}
}

// bufSize is the size of WriteTo's buffer: room for the kept head and at
// least one chunk; when the content's size is known, no more than it needs,
// and one chunk only if it is too big to be kept.
func (c *content) bufSize() int {
	size := max(c.keep+1, copyChunk) // filled, it holds more than keep
	if n, ok := remaining(c.r); ok {
		switch {
		case n > c.keep:
			size = copyChunk // nothing to keep
		case n < size:
			size = n + 1 // the extra byte sees the end
		}
	}
	return int(size)
}

// remaining is how many bytes r has left to give, when that is known: a
// string or byte reader, or a regular file (ws write < file).
func remaining(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len()), true
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		pos, err := r.Seek(0, io.SeekCurrent)
		if err != nil || pos > st.Size() {
			return 0, false
		}
		return st.Size() - pos, true
	}
	return 0, false
}

// print is the history's fingerprint of the written file.
func (c *content) print(st fsroot.FileStat) history.Fingerprint {
	if c.n > c.keep {
		return history.Fingerprint{Kind: history.KindFile, Size: c.n, MtimeNS: st.MtimeNS}
	}
	return history.FileFingerprint(c.head, st.MtimeNS)
}

// dryWrite says what a write would change, changing nothing.
func (w *Workspace) dryWrite(t *fsroot.Target, g *writeGuard, data []byte, noReplace bool) (*WriteResult, error) {
	old, err := w.readLoc(g.loc)
	exists := err == nil
	switch {
	case exists && noReplace:
		return nil, errs.FileExists(t.Input, nil)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, errs.FromOS("write", t.Input, err, false)
	}
	res := &WriteResult{Path: Bytes(t.Input), Bytes: len(data), DryRun: true}
	res.Diff = Bytes(udiff.Unified(diffName(t, exists, true), diffName(t, true, false), old, data, 3))
	res.text = fmt.Sprintf("Would write %d bytes to %s (dry run: nothing was written)", len(data), t.Input)
	if len(res.Diff) == 0 {
		res.text += "\nThe file already holds exactly this content."
	} else {
		res.text += "\n\n" + string(res.Diff)
	}
	return res, nil
}

// diffName names a side of a diff: the path, or /dev/null for a file that
// does not exist (git's convention, so patch tools read the diff).
func diffName(t *fsroot.Target, exists, old bool) string {
	if !exists {
		return "/dev/null"
	}
	if old {
		return "a/" + string(t.Rel())
	}
	return "b/" + string(t.Rel())
}

// writeFile writes data to t under a held guard (not after ctx ends: see
// commit) and updates the read record
// of the file if this thread has one (recordWrite).
func (w *Workspace) writeFile(ctx context.Context, t *fsroot.Target, g *writeGuard, src io.WriterTo, noReplace bool) (fsroot.FileStat, error) {
	st, err := w.fs.WriteAtomic(t.Loc(), src, fsroot.WriteOptions{NoReplace: noReplace, Commit: commitWith(ctx), Track: trackWith(ctx)})
	if err != nil {
		return st, writeError(t, err, noReplace)
	}
	return st, w.recordWrite(g.real, st)
}

// writeError gives a failed write Mastra's message.
func writeError(t *fsroot.Target, err error, noReplace bool) error {
	switch {
	case err == fsroot.ErrNotRegular:
		return errs.NotRegular("write", t.Input, err)
	case err == unix.EEXIST && noReplace:
		return errs.FileExists(t.Input, err)
	case err == unix.ENOTDIR:
		return errs.NotDir(t.Input, err)
	}
	return errs.FromOS("write", t.Input, err, false)
}
