package remote

import (
	"io"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/internal/tick"
)

// A link that goes silent without closing (a dropped network, a laptop
// that left, a sandbox runtime that lost its client) would otherwise hold
// the local ws until the remote command ends and leave that command
// running until the remote sshd notices, which can take hours. So each
// side sends a ping every heartbeat while the command runs, and a side
// that gets no byte for silentBeats heartbeats while it is ready to read
// takes the link as gone: the server stops the command as a hangup does,
// the client ends the transport and says so.
const (
	heartbeat   = 10 * time.Second
	silentBeats = 6
)

// liveness tracks when the other side was last heard from.
type liveness struct {
	mu   sync.Mutex
	now  func() time.Time
	last time.Time
	// held counts the reads this side holds up itself (a write to a slow
	// local reader, a command that does not take its stdin yet): the link
	// is not silent then, only unread.
	held int
}

func newLiveness(now func() time.Time) *liveness {
	return &liveness{now: now, last: now()}
}

// heard notes that bytes came.
func (l *liveness) heard() {
	l.mu.Lock()
	l.last = l.now()
	l.mu.Unlock()
}

// hold notes that this side stops reading until release is called.
func (l *liveness) hold() (release func()) {
	l.mu.Lock()
	l.held++
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		l.held--
		l.last = l.now() // the silence counts from when reading resumed
		l.mu.Unlock()
	}
}

// silent reports whether nothing came for longer than limit while this
// side was ready to read.
func (l *liveness) silent(limit time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held == 0 && l.now().Sub(l.last) > limit
}

// watch calls gone once the link has been silent for longer than limit,
// looking every interval, unless done closes first.
func (l *liveness) watch(done <-chan struct{}, interval, limit time.Duration, gone func()) {
	tick.Every(done, interval, func(time.Time) bool {
		if l.silent(limit) {
			gone()
			return false
		}
		return true
	})
}

// ping sends a ping frame every interval until done closes or the link
// fails. The callers send the first one themselves, at once.
func ping(fw *frameWriter, done <-chan struct{}, interval time.Duration) {
	tick.Every(done, interval, func(time.Time) bool { return fw.frame(kindPing, nil) == nil })
}

// hearing is a reader that tells l when bytes come.
type hearing struct {
	r io.Reader
	l *liveness
}

func (h hearing) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.l.heard()
	}
	return n, err
}

// heldWriter is a writer whose writes hold l: while one waits on a slow
// reader, the link is not silent.
type heldWriter struct {
	w io.Writer
	l *liveness
}

func (h heldWriter) Write(p []byte) (int, error) {
	release := h.l.hold()
	defer release()
	return h.w.Write(p)
}
