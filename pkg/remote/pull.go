package remote

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// pulls are a session's input files, each asked of the client when the
// command first reads it: a command that refuses a file from its size
// (upload over its limit) never has it cross. The client sends them one
// at a time, in the order asked; what came of each is kept in an unlinked
// temporary file, which its readers read as it grows.
type pulls struct {
	fw     *frameWriter
	mu     sync.Mutex
	cond   *sync.Cond
	all    []*pulled
	queue  []*pulled // asked for, not ended yet; the first is coming
	failed error     // the session ended: nothing more comes
}

// pulled is one input file.
type pulled struct {
	index int
	path  string
	size  int64 // on the client, when a regular file; else -1
	asked bool
	f     *os.File // what came so far (nil before the first byte)
	have  int64
	done  bool  // it has all come
	err   error // how reading it ended on the client (open or read), or the session's end
	open  bool  // the error is the client's open failing
}

func newPulls(fw *frameWriter) *pulls {
	p := &pulls{fw: fw}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pulls) add(index int, path string, size int64) *pulled {
	in := &pulled{index: index, path: path, size: size}
	p.all = append(p.all, in)
	return in
}

// ask asks for in, once.
func (p *pulls) ask(in *pulled) {
	p.mu.Lock()
	if in.asked || p.failed != nil {
		p.mu.Unlock()
		return
	}
	in.asked = true
	p.queue = append(p.queue, in)
	p.mu.Unlock()
	if err := p.fw.frame(kindWantFile, []byte(strconv.Itoa(in.index))); err != nil {
		p.fail(err)
	}
}

// data keeps bytes of the file that is coming.
func (p *pulls) data(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		return // not asked for: an earlier client's stray bytes
	}
	in := p.queue[0]
	if in.f == nil && in.err == nil {
		f, err := os.CreateTemp("", "ws-remote-*")
		if err != nil {
			in.err = err
		} else {
			os.Remove(f.Name())
			in.f = f
		}
	}
	if in.f != nil && in.err == nil {
		if _, err := in.f.WriteAt(b, in.have); err != nil {
			in.err = err
		} else {
			in.have += int64(len(b))
		}
	}
	p.cond.Broadcast()
}

// end ends the file that is coming.
func (p *pulls) end(payload []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		return
	}
	in := p.queue[0]
	p.queue = p.queue[1:]
	var e fileEnd
	if err := json.Unmarshal(payload, &e); err == nil && in.err == nil {
		in.err, in.open = e.err(in.path), e.Op == "open"
	}
	in.done = true
	p.cond.Broadcast()
}

// fail ends every file still to come with err: the session is over.
func (p *pulls) fail(err error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed == nil {
		p.failed = err
	}
	for _, in := range p.all {
		if !in.done && in.err == nil {
			in.err = &fs.PathError{Op: "read", Path: in.path, Err: err}
		}
	}
	p.cond.Broadcast()
}

func (p *pulls) close() {
	if p == nil {
		return
	}
	p.fail(io.ErrClosedPipe)
	for _, in := range p.all {
		if in.f != nil {
			in.f.Close()
		}
	}
}

// opened is what opening in says: nil for a regular file, known by its
// size; anything else (a pipe, or a file the client could not look at)
// is asked for at once, so that a file the client cannot open fails to
// open here too.
func (p *pulls) opened(in *pulled) error {
	if in.size >= 0 {
		return nil
	}
	p.ask(in)
	p.mu.Lock()
	defer p.mu.Unlock()
	for in.have == 0 && !in.done && in.err == nil {
		p.cond.Wait()
	}
	if in.open {
		return in.err
	}
	return nil
}

// pulledReader reads a pulled input from its start: its first read asks
// for the file, and each read waits for bytes past what it has read.
type pulledReader struct {
	p   *pulled
	s   *pulls
	off int64
}

func (r *pulledReader) Read(b []byte) (int, error) {
	in, p := r.p, r.s
	p.ask(in)
	p.mu.Lock()
	for in.have <= r.off && !in.done && in.err == nil {
		p.cond.Wait()
	}
	have, err, f := in.have, in.err, in.f
	p.mu.Unlock()
	if have > r.off {
		n, rerr := f.ReadAt(b[:min(int64(len(b)), have-r.off)], r.off)
		r.off += int64(n)
		if n > 0 || rerr == nil {
			return n, nil
		}
		return 0, rerr
	}
	if err != nil {
		return 0, err
	}
	return 0, io.EOF
}

func (r *pulledReader) Close() error { return nil }

// Stat describes the input as the client saw it, without asking for it:
// a regular file of its size, or (size unknown) a pipe.
func (r *pulledReader) Stat() (fs.FileInfo, error) { return pulledInfo{r.p}, nil }

type pulledInfo struct{ p *pulled }

func (i pulledInfo) Name() string { return filepath.Base(i.p.path) }
func (i pulledInfo) Size() int64  { return max(i.p.size, 0) }
func (i pulledInfo) Mode() fs.FileMode {
	if i.p.size < 0 {
		return fs.ModeNamedPipe | 0o400
	}
	return 0o400
}
func (i pulledInfo) ModTime() time.Time { return time.Time{} }
func (i pulledInfo) IsDir() bool        { return false }
func (i pulledInfo) Sys() any           { return nil }
