package grep

import (
	"bytes"
	"context"
	"math"
	"math/bits"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/internal/fdread"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/media"
	"golang.org/x/sys/unix"
)

// File is a file that was searched, in walk order.
type File struct {
	Rel  string // workspace-relative
	Hits []Hit  // the lines reported, in order (none when the search only counts)
	// Count is the number of lines reported: len(Hits), or, when the
	// search only counts (Options.Count), that number alone. Of a file
	// passed in parts, the number so far.
	Count int
	// Continued and More describe a file that OnFile gets in parts (see
	// Options.Parts): Continued, an earlier part was passed; More, later
	// parts follow. A part's Hits, Buf and Lines are what was found
	// since the last part.
	Continued, More bool
	// Buf is the content, kept when there are hits (unless NoContent):
	// of a big file, or when the search prints a bounded part of each
	// file, only the lines it prints (hits and their context).
	Buf   []byte
	Lines *Lines // the lines of Buf
	Size  int64  // the bytes searched
	loc   fsroot.Loc
	link  bool // a symlink (its target's path is what is opened)
	named bool // the root itself, not a file a walk met
	bin   bool
	size  int64      // a binary file's size
	err   string     // why the file could not be searched ("": it was)
	held  int        // its weight in collector.held while it waits to be taken
	batch *grepBatch // the batch it is in, and where, while it is scanned
	idx   int
	// timeout: the ECMAScript engine gave up on a line of this file.
	timeout *TimeoutError
}

// Options say what Search looks for and where.
type Options struct {
	Matcher    *Matcher
	MaxCount   int     // matching lines per file; 0: no limit
	MaxMatches int     // matching lines in all; the search stops there (0: no limit)
	Hidden     bool    // search dot-files and dot-directories too
	Glob       string  // only files whose workspace-relative path matches (doublestar)
	Filter     *Filter // ripgrep's -g and --type, applied to the files a walk meets
	Invert     bool    // the lines that do not match (-v)
	NoIgnore   bool    // .gitignore files are not read
	// NoGitObjects leaves out the objects directory of a .git that is
	// the root: compressed objects and packs, where no text is to be
	// found, and most of a repository's files.
	NoGitObjects bool
	// NamedBinary: a file named as the root is searched even when it is
	// binary, as rg searches a file it is given (-l, -c and -q, which
	// show no line); a walk still skips the binary files it meets.
	NamedBinary bool
	// NoContent: only the hits are kept, not the files' content (-l
	// lists files over a whole tree without holding it in memory).
	NoContent bool
	// Count: only how many lines each file reports is kept (File.Count),
	// not where they are, nor the content (-c): the memory a count takes
	// is bounded by the files with a match, however many lines match.
	Count bool
	// Before and After are the lines of context shown around a hit: a
	// file searched in windows keeps those, not its whole content.
	Before, After int
	// OnFile, when set, is called with each file with hits as soon as it
	// is taken, in walk order (to stream results): from a search
	// goroutine, one call at a time, while the other files wait to be
	// taken; it must not block for long or call Search.
	OnFile func(*File)
	// OnMiss, when set, is called with the path of each file searched that
	// had no hits (not a binary file skipped, not one that could not be
	// read), in walk order, as OnFile is: grep -L's files.
	OnMiss func(rel string)
	// Parts: with OnFile and no MaxMatches, a file searched in windows
	// is passed in parts as they are found, once every file before it
	// is taken, so its lines are not all held until its end (--jsonl
	// on a log of gigabytes).
	Parts bool
	// Forget: OnFile takes what a file found. Once it has, the file keeps
	// its name and Count, not its Hits, Buf or Lines, so a streamed search
	// holds only the files not yet taken, not every line it sent.
	Forget bool
}

// MaxBinaryNames and BinaryProbeSize bound Result.BinaryNames: looking
// into them again reads 16 MiB at the most.
const (
	MaxBinaryNames  = 8
	BinaryProbeSize = 2 << 20
)

// Result is what Search found.
type Result struct {
	Files         []*File // files with hits, in walk order
	Truncated     bool    // stopped at MaxMatches
	BinarySkipped int
	BinaryRoot    string // the root's path, when it names a file skipped as binary
	// BinaryNames are the first binary files a walk passed over that are
	// small enough to look into again (at most MaxBinaryNames, of at most
	// BinaryProbeSize bytes each), in walk order: a search that found
	// nothing can say which of them hold what it looked for.
	BinaryNames    []string
	Skipped        []Skip // paths that could not be searched, in walk order
	TargetNotFound bool
	GitDirs        []string // the .git directories the walk left out
	// Timeout is set when the ECMAScript engine gave up on a line; the
	// search stopped there.
	Timeout *Timeout
	// heldPeak is the most the files scanned out of turn held at once
	// (Forget), for the tests of admit.
	heldPeak int
}

// Skip is a path that could not be searched, and why.
type Skip struct {
	Rel    string
	Reason string
}

// Timeout says where a match ran out of time.
type Timeout struct {
	Rel   string
	Line  int // 1-based
	Limit time.Duration
}

type grepRun struct {
	fs         *fsroot.FS
	m          *Matcher
	maxCount   int
	maxMatches int
	hidden     bool
	glob       string
	filter     *Filter
	invert     bool
	noIgnore   bool
	noObjects  bool
	onFile     func(*File)
	onMiss     func(rel string)
	noContent  bool
	namedBin   bool
	count      bool
	parts      bool
	forget     bool
	c          *collector
	// fileLimit is the most lines one file can report: MaxCount, or
	// MaxMatches when that is less (math.MaxInt: no limit). A file's scan
	// stops there; it reads no further than what can be shown.
	fileLimit int
	before    int
	after     int
	ctx       context.Context
	res       *Result
}

// Search walks the file or directory root and scans its files with one
// worker per core; results are taken in walk order so the MaxMatches cap
// stops at the same place every time. .gitignore files are honoured, .git
// directories and (unless Hidden) dot names are passed over, and binary
// files are skipped.
// A root outside the workspace is refused with Resolve's error, as read
// refuses it. A root inside a .git directory is searched (it was asked
// for); the walk leaves out .git directories below the root and says so.
func Search(ctx context.Context, fsys *fsroot.FS, root string, o Options) (*Result, error) {
	t, err := fsys.Resolve(root)
	if err != nil {
		return nil, err
	}
	g := &grepRun{fs: fsys, m: o.Matcher, maxCount: o.MaxCount, maxMatches: o.MaxMatches, hidden: o.Hidden, glob: o.Glob,
		filter: o.Filter, invert: o.Invert, noIgnore: o.NoIgnore, noObjects: o.NoGitObjects, onFile: o.OnFile, onMiss: o.OnMiss, noContent: o.NoContent || o.Count,
		namedBin: o.NamedBinary, count: o.Count, before: max(o.Before, 0), after: max(o.After, 0), ctx: ctx, res: &Result{}}
	if g.maxMatches <= 0 {
		g.maxMatches = math.MaxInt
	}
	g.fileLimit = g.maxMatches
	g.forget = o.Forget && o.OnFile != nil
	g.parts = o.Parts && o.OnFile != nil && g.maxMatches == math.MaxInt && !g.noContent
	if o.MaxCount > 0 && o.MaxCount < g.fileLimit {
		g.fileLimit = o.MaxCount
	}
	g.run(ctx, t)
	return g.res, nil
}

// inGit reports a path with a .git component.
func inGit(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), ".git")
}

func (g *grepRun) run(ctx context.Context, t *fsroot.Target) {
	l := t.Loc()
	st, err := g.fs.Stat(l)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			g.res.TargetNotFound = true
		} else {
			g.res.Skipped = append(g.res.Skipped, Skip{string(t.Rel()), fsroot.SkipReason(err)})
		}
		return
	}
	// Files travel in batches, which keeps channel traffic (and goroutine
	// hand-offs) low when most files are small. A worker that finishes a
	// file takes it, and every file after it that is done, in walk order
	// itself: there is no collector goroutine to wake.
	work := make(chan *grepBatch, 64)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &collector{g: g, pending: map[int]*grepBatch{}, cancel: cancel}
	c.taken.L = &c.mu
	g.c = c
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			var buf []byte // this worker's read buffer, reused file after file
			for b := range work {
				for i, f := range b.files {
					// A path the walk could not read comes with its
					// reason and is not opened.
					if ctx.Err() == nil && f.err == "" {
						f.batch, f.idx = b, i
						c.admit(f)
						buf = g.scan(f, buf)
					}
					c.done(b, i)
				}
			}
		}()
	}
	var gitDirs []string // written by the walker only; read after the workers are done
	q := &batcher{out: work, size: grepBatchSize}
	if g.forget {
		// A file done out of turn waits, whole, for the files before it,
		// and a worker waits once those hold maxHeld (admit): small
		// batches keep the files that wait few.
		q.size = streamBatchSize
	}
	if st.IsDir() {
		var ig *fsroot.Ignore
		if !g.noIgnore {
			ig = g.fs.IgnoreFor(t)
		}
		opts := fsroot.WalkOptions{Hidden: g.hidden, SkipGit: !inGit(string(t.Rel())), Links: true, Ignore: ig,
			Unreadable: func(rel string, err error) { q.add(&File{Rel: rel, err: fsroot.SkipReason(err)}) },
			GitSkipped: func(rel string) { gitDirs = append(gitDirs, rel) }}
		if g.filter.HasGlobs() {
			// -g globs are rg's overrides: a directory a ! glob matches
			// is not entered, and a glob that decides stands over
			// .gitignore and dot names.
			opts.Override = func(rel string, isDir bool) (bool, bool) {
				v := g.filter.Decide(rel, isDir)
				return v == Include, v != Undecided
			}
		}
		_, err := g.fs.Walk(ctx, l, string(t.Rel()), opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
			if e.IsDir {
				if g.noObjects && e.Depth == 1 && e.Name == "objects" && path.Base(string(t.Rel())) == ".git" {
					return false, nil
				}
				return true, nil // symlinked directories are not entered
			}
			if e.Special {
				// FIFOs, sockets and devices are passed over unopened.
				return false, nil
			}
			if g.glob != "" {
				if ok, _ := doublestar.Match(g.glob, e.Rel()); !ok {
					return false, nil
				}
			}
			if !g.filter.Match(e.Rel()) {
				return false, nil
			}
			q.add(&File{Rel: e.Rel(), loc: e.Loc(), link: e.IsLink})
			return false, nil
		})
		if err != nil {
			q.add(&File{Rel: string(t.Rel()), err: fsroot.SkipReason(err)})
		}
	} else if !st.Mode.IsRegular() {
		// A FIFO, a socket or a device given as the path: named as
		// skipped, without an open (a terminal's can make it ws's).
		q.add(&File{Rel: string(t.Rel()), err: "not a regular file"})
	} else {
		q.add(&File{Rel: string(t.Rel()), loc: l, named: true})
	}
	q.flush()
	close(work)
	workers.Wait()
	g.res.GitDirs = gitDirs
	g.res.heldPeak = c.peak
}

// Reason says in a few words why a path could not be searched
// (fsroot.SkipReason, which grep, glob and ls share).
func Reason(err error) string { return fsroot.SkipReason(err) }

// collector takes the scanned files in walk order, whichever worker
// scans them, so the MaxMatches cap stops at the same file every time.
type collector struct {
	g       *grepRun
	cancel  context.CancelFunc
	mu      sync.Mutex
	pending map[int]*grepBatch // begun, with files not taken
	next    int                // the seq of the batch to take from next
	took    int                // its files taken
	total   int                // matching lines taken
	// held is what the files scanned but not taken keep (Forget only:
	// without it every file keeps what it found anyway); taken is
	// signalled when files are taken.
	held  int
	peak  int // the most held at once
	taken sync.Cond
}

// maxHeld is the most that the files scanned out of turn may hold
// (Forget) before a worker waits for the files before them to be taken
// rather than scan one more: a stream in walk order holds a bounded part
// of the tree, not every file that a slow one holds up.
var maxHeld = 32 << 20

// admit waits, before f is scanned, while the files done out of turn
// hold maxHeld, unless f is the next to take (whose worker never waits,
// so the files before every waiting one are taken in the end: batches
// leave the channel in walk order, each scanned in order).
func (c *collector) admit(f *File) {
	if !c.g.forget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.held > maxHeld && !(f.batch.seq == c.next && c.took == f.idx) && c.g.ctx.Err() == nil {
		c.taken.Wait()
	}
}

// weight is about what a scanned file holds until it is taken.
func weight(f *File) int {
	n := cap(f.Buf) + len(f.Hits)*int(unsafe.Sizeof(Hit{}))
	if f.Lines != nil {
		n += f.Lines.weight()
	}
	return n
}

// done hands over file i of batch b, scanned, and takes the files that
// are next in walk order and scanned.
func (c *collector) done(b *grepBatch, i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b.done = i + 1
	c.pending[b.seq] = b
	moved := false // a file was taken: a worker waiting in admit may go on
	for {
		h, ok := c.pending[c.next]
		if !ok {
			break
		}
		for ; c.took < h.done; c.took++ {
			f := h.files[c.took]
			c.held -= f.held
			f.held = 0
			moved = true
			c.take(f)
		}
		if c.took < len(h.files) {
			break
		}
		delete(c.pending, c.next)
		c.next++
		c.took = 0
	}
	if !c.g.forget {
		return
	}
	if b.seq > c.next || b.seq == c.next && c.took <= i {
		// Done out of turn: it waits, with what it found, for the files
		// before it.
		f := b.files[i]
		f.held = weight(f)
		c.held += f.held
		c.peak = max(c.peak, c.held)
	}
	if moved {
		c.taken.Broadcast()
	}
}

// isNext reports whether every file before f (being scanned) is taken.
func (c *collector) isNext(f *File) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f.batch.seq == c.next && c.took == f.idx
}

// take adds a file's results; c.mu is held.
func (c *collector) take(f *File) {
	g := c.g
	if c.total >= g.maxMatches {
		return
	}
	switch {
	case f.timeout != nil:
		g.res.Timeout = &Timeout{Rel: f.Rel, Line: f.timeout.Line + 1, Limit: f.timeout.Limit}
		g.maxMatches = c.total
		c.cancel()
	case f.err != "":
		g.res.Skipped = append(g.res.Skipped, Skip{f.Rel, f.err})
	case f.bin:
		g.res.BinarySkipped++
		switch {
		case f.named:
			g.res.BinaryRoot = f.Rel
		case len(g.res.BinaryNames) < MaxBinaryNames && f.size > 0 && f.size <= BinaryProbeSize:
			g.res.BinaryNames = append(g.res.BinaryNames, f.Rel)
		}
	case f.Count > 0:
		if c.total+f.Count > g.maxMatches {
			f.Count = g.maxMatches - c.total
			if f.Hits != nil {
				f.Hits = f.Hits[:f.Count]
			}
		}
		c.total += f.Count
		g.res.Files = append(g.res.Files, f)
		if g.onFile != nil {
			g.onFile(f)
			if g.forget {
				f.Hits, f.Buf, f.Lines = nil, nil, nil
			}
		}
		if c.total >= g.maxMatches {
			g.res.Truncated = true
			c.cancel()
		}
	case g.onMiss != nil:
		g.onMiss(f.Rel)
	}
	f.batch = nil
}

// grepBatch is a run of files in walk order.
type grepBatch struct {
	seq   int
	files []*File
	done  int // the files scanned, in order (written under the collector's lock)
}

// batcher groups the walker's files into batches.
type batcher struct {
	out  chan<- *grepBatch
	cur  *grepBatch
	seq  int
	size int // files a batch
}

// Files go to the workers grepBatchSize at a time, streamBatchSize when
// a stream forgets what it has sent (see admit).
const (
	grepBatchSize   = 32
	streamBatchSize = 4
)

func (q *batcher) add(f *File) {
	if q.cur == nil {
		q.cur = &grepBatch{seq: q.seq, files: make([]*File, 0, q.size)}
		q.seq++
	}
	q.cur.files = append(q.cur.files, f)
	if len(q.cur.files) == q.size {
		q.flush()
	}
}

func (q *batcher) flush() {
	if q.cur != nil {
		q.out <- q.cur
		q.cur = nil
	}
}

// keepBuf is the largest read buffer a worker keeps for the next file;
// a bigger file gets a buffer of its own.
const keepBuf = 16 << 20

// readAllSized reads the file open at fd, whose size fstat gave, into buf
// (grown when it is too small): one read when the file has not changed
// since, more only if it grew.
func readAllSized(fd int, size int64, buf []byte) ([]byte, error) {
	if int64(cap(buf)) <= size {
		// Grown in powers of two, so a worker makes few buffers however
		// its files' sizes rise.
		buf = make([]byte, 0, max(1<<bits.Len(uint(size)), 64<<10))
	}
	return fdread.ReadAll(fd, size, buf)
}

// notRegular passes over f, a FIFO, a socket, a device or a directory
// (a link to one, met in a walk, as the walk passes them over), or names
// it as skipped when it is the path the search was given: a search of it
// alone that said only "0 matches" read as if it had been searched.
func (g *grepRun) notRegular(f *File) {
	if f.named {
		f.err = "not a regular file"
	}
}

// headFirst is the size above which a file's head is sniffed first.
const headFirst = 64 << 10

// scan reads one file once and finds its matching lines. buf is the
// worker's read buffer; scan returns the one to use for the next file (a
// file with hits keeps the buffer its content is in). It uses raw system
// calls: an *os.File would add an fcntl and an epoll_ctl per file.
func (g *grepRun) scan(f *File, buf []byte) []byte {
	fd, err := g.fs.Open(f.loc, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err == unix.ENXIO {
		// A socket (or a device without its driver): not a file to search.
		g.notRegular(f)
		return buf
	}
	if err != nil {
		f.err = fsroot.SkipReason(err)
		if f.link && err == unix.ENOENT {
			f.err = "broken symlink" // its target does not exist
		}
		return buf
	}
	defer unix.Close(fd)
	st, err := fsroot.Fstat(fd)
	if err != nil {
		f.err = fsroot.SkipReason(err)
		return buf
	}
	if !st.Mode.IsRegular() {
		g.notRegular(f)
		return buf
	}
	// Files bigger than a buffer are judged by their head before the rest
	// is read: a disk image is skipped after 8 KiB, not after reading
	// gigabytes, and the big binary files of a source tree cost one pread.
	// So is a file whose size says 0 (procfs and sysfs give no size):
	// what it holds is not known until it is read, and /proc/self/pagemap
	// holds 8 bytes for each page of the address space, hundreds of
	// gigabytes, which a whole read took into memory until ws died.
	if unsized := st.Size == 0; st.Size > headFirst || unsized {
		if cap(buf) < media.SniffLen {
			buf = make([]byte, 0, 64<<10)
		}
		head := buf[:media.SniffLen]
		n, err := unix.Pread(fd, head, 0)
		if err != nil {
			f.err = fsroot.SkipReason(err)
			return buf
		}
		if IsBinary(f.Rel, head[:n]) && !(f.named && g.namedBin) {
			f.bin, f.size = true, st.Size
			return buf
		}
		// A match may span windows when it may span lines: such a
		// search reads each file whole, as ripgrep's -U does. A file
		// without a size is searched in windows, however long it
		// turns out to be.
		if !g.m.multi && (st.Size > windowFrom || st.Size > int64(windowSize) && g.bounded() || unsized && n > 0) {
			return g.scanWindows(f, fd, st.Size, buf)
		}
	}
	buf, err = readAllSized(fd, st.Size, buf)
	if err != nil {
		f.err = fsroot.SkipReason(err)
		return reuse(buf)
	}
	if st.Size <= headFirst && IsBinary(f.Rel, buf[:min(len(buf), media.SniffLen)]) && !(f.named && g.namedBin) {
		f.bin, f.size = true, int64(len(buf))
		return reuse(buf)
	}
	f.Size = int64(len(buf))
	t := g.newTally()
	lines := 0
	if g.invert {
		lines = countLines(buf)
	}
	f.timeout = g.scanInto(buf, 0, lines, t)
	f.Hits, f.Count = t.hits, t.n
	if f.Count == 0 || g.noContent || f.timeout != nil {
		return reuse(buf)
	}
	if g.bounded() && !(g.m.multi && g.parts) {
		// The file keeps only the lines it prints, as a windowed search
		// keeps them, and the worker its buffer: a tree of big files
		// with a hit each is not held whole until the output. (A stream
		// of a multi-line search sends whole matches, which it finds
		// again in the file: it keeps the file.)
		if !g.invert {
			lines = countLines(buf)
		}
		w := newWindowed(g.before, g.after)
		w.gather(buf, lines, 0, 0, f.Hits)
		f.Buf, f.Lines = sparseLines(w.kept, lines)
		return reuse(buf)
	}
	f.Lines = IndexLines(buf)
	if cap(buf) > 2*len(buf)+4<<10 {
		// A small file in a big buffer keeps a copy of its own; the
		// worker keeps the buffer.
		f.Buf = bytes.Clone(buf)
		return buf
	}
	f.Buf = buf
	return nil // the file keeps it
}

// bounded reports a search whose files each keep a bounded part of
// themselves: a count, at most fileLimit lines, or no content. A file
// bigger than a window is then searched window by window (see
// scanWindows), so it is neither held whole nor read past what it can
// report.
func (g *grepRun) bounded() bool {
	return g.noContent || g.fileLimit < math.MaxInt
}

// tally gathers the lines one file reports as its buffers are scanned
// (the whole file, or window after window): their places, or when the
// search only counts, their number.
type tally struct {
	limit int   // the most lines the file reports
	count bool  // only n is kept
	hits  []Hit // numbered in the file
	n     int
}

func (g *grepRun) newTally() *tally { return &tally{limit: g.fileLimit, count: g.count} }

// add takes a line and reports whether the file takes more.
func (t *tally) add(line, col int) bool {
	if !t.count {
		t.hits = append(t.hits, Hit{line, col})
	}
	t.n++
	return t.n < t.limit
}

// full reports a file that takes no more lines.
func (t *tally) full() bool { return t.n >= t.limit }

// scanInto adds to t the lines of buf that the search reports, up to t's
// limit: those that match, or (-v) those that do not, of buf's lines
// lines (-v needs their number). first is the number of buf's first line
// in the file; a timeout names its line in buf.
func (g *grepRun) scanInto(buf []byte, first, lines int, t *tally) *TimeoutError {
	if t.full() {
		return nil
	}
	var err error
	if !g.invert {
		err = g.m.each(buf, !g.noContent, false, func(line, col int) bool { return t.add(first+line, col) })
	} else {
		// The lines between one match and the next are the ones
		// reported; the scan stops as soon as the file has its fill.
		next := 0 // the first line not known to match or not
		err = g.m.each(buf, false, true, func(line, col int) bool {
			last := line // lines next to last hold no match
			if col >= 0 {
				last--
			}
			for ; next <= last; next++ {
				if !t.add(first+next, 0) {
					return false
				}
			}
			next = line + 1
			return true
		})
		for ; err == nil && next < lines && !t.full(); next++ {
			t.add(first+next, 0)
		}
	}
	if te, ok := err.(*TimeoutError); ok {
		return te
	}
	return nil
}

// reuse is buf for the next file, unless it is too big to keep.
func reuse(buf []byte) []byte {
	if cap(buf) > keepBuf {
		return nil
	}
	return buf
}

// IsBinary decides by content: a NUL byte in the first 8 KiB, or content
// that sniffs as a binary type. The sniffer runs only when it could say so:
// on content that is not UTF-8, or whose first bytes hold control
// characters or a PDF signature (where formats put their magic numbers).
func IsBinary(name string, head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	valid := utf8.Valid(head) || len(head) == media.SniffLen && utf8.Valid(trimPartialRune(head))
	if valid && media.LooksText(head[:min(len(head), 16)]) && !bytes.HasPrefix(head, []byte("%PDF")) {
		return false
	}
	return !media.Classify(name, head).Text
}

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end of
// a head read.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			return b[:len(b)-i]
		}
	}
	return b
}
