package mcp

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// limitPosts bounds the POSTs in flight in front of next (429 beyond,
// 503 once the gate is closed); other methods go straight through. A POST
// that finds no place reads its body ahead (see gate.enter), up to
// maxBody (0: DefaultMaxBodyBytes) while it waits: once the body is read,
// the server notices a client that goes away (it cancels the request's
// context), so the client's place among the waiting comes back at once,
// not when the wait is over. A body that carries no request, only
// responses and notifications (a client's answer to the server's
// question, notifications/cancelled), runs no tool and needs no place:
// it is let in as soon as it is read.
func limitPosts(posts *gate, maxBody int64, next http.Handler) http.Handler {
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		gone, cancel := context.WithCancel(r.Context())
		defer cancel()
		body := &postBody{r: r, maxBody: maxBody, failed: cancel}
		free, status, msg := posts.enter(gone, body)
		if status != 0 {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			httpError(w, status, msg)
			return
		}
		if free {
			defer posts.leaveFree()
		} else {
			defer posts.leave()
		}
		next.ServeHTTP(w, r)
	})
}

// peekBytes bounds the body read of a POST that finds no place and no
// room among the waiting, to see whether it carries a request: the
// answers and notifications that need no place are far smaller, and the
// bound is that of a request's header (MaxHeaderBytes), which every
// connection may already hold.
const peekBytes = 64 << 10

// aheadReader is the body of a request at the gate.
type aheadReader interface {
	// readAhead starts reading the body, up to max bytes (0: as much
	// as the body may have), and returns a channel closed once done.
	readAhead(max int64) <-chan struct{}
	// light reports, once the read is done, whether the body was read
	// whole and carries no request.
	light() bool
}

// postBody is a POST's body at the gate: read ahead, it replaces the
// request's body.
type postBody struct {
	r       *http.Request
	maxBody int64
	failed  func()
	ahead   *aheadBody
}

func (b *postBody) readAhead(max int64) <-chan struct{} {
	if max <= 0 || max > b.maxBody {
		max = b.maxBody
	}
	b.ahead = newAheadBody(b.r.Body, max, b.failed)
	b.r.Body = b.ahead
	return b.ahead.done
}

func (b *postBody) light() bool {
	a := b.ahead
	return a.err == nil && int64(len(a.head)) <= a.max && !carriesRequest(a.head)
}

// gate counts the requests in flight, up to max (0: no bound), and once
// closed lets none in. A request beyond the bound waits up to queueWait
// for a place before it is refused, and at most max requests wait: a
// client that sends its next request the moment it has an answer is not
// refused because the handler of that answer is still returning. A body
// that carries no request is let in beside the bound (free), as soon as
// it is read.
type gate struct {
	mu      sync.Mutex
	n, max  int
	free    int           // in beside the bound: they carry no request
	wait    time.Duration // how long one beyond the bound waits (queueWait when 0)
	waiting int
	closed  bool
	freed   chan struct{} // closed (and replaced) when a place comes back or the gate closes
	idle    chan struct{} // closed when closed and nothing is in
}

// queueWait is how long a request beyond the bound waits for a place.
const queueWait = time.Second

// enter lets a request in, or says with which HTTP status it is refused;
// free tells that it came in beside the bound (it leaves by leaveFree).
// A request that finds no place reads its body ahead (when body is not
// nil): all of it when there is room among the waiting, and it waits for
// a place meanwhile; only peekBytes otherwise, and it is refused (429)
// unless that is the whole body and it carries no request. It gives up
// when ctx is done.
func (g *gate) enter(ctx context.Context, body aheadReader) (free bool, status int, msg string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		return false, http.StatusServiceUnavailable, "the server is shutting down"
	case g.max == 0 || g.n < g.max:
		g.n++
		return false, 0, ""
	}
	waits := g.waiting < g.max
	if !waits && body == nil {
		return false, http.StatusTooManyRequests, "too many requests at once"
	}
	var read <-chan struct{} // closed once the body is read ahead
	if body != nil {
		max := int64(0)
		if !waits {
			max = peekBytes
		}
		read = body.readAhead(max)
	}
	if waits {
		g.waiting++
		defer func() { g.waiting-- }() // g.mu is held again by then
	}
	t := time.NewTimer(cmp.Or(g.wait, queueWait))
	defer t.Stop()
	for {
		var freed chan struct{}
		if waits {
			if g.freed == nil {
				g.freed = make(chan struct{})
			}
			freed = g.freed
		}
		var gaveUp, isRead bool
		g.mu.Unlock()
		select {
		case <-freed:
		case <-read:
			read, isRead = nil, true
		case <-t.C:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		g.mu.Lock()
		switch {
		case g.closed:
			return false, http.StatusServiceUnavailable, "the server is shutting down"
		case isRead && body.light():
			g.free++
			return true, 0, ""
		case waits && g.n < g.max:
			g.n++
			return false, 0, ""
		case gaveUp || isRead && !waits:
			return false, http.StatusTooManyRequests, "too many requests at once"
		}
	}
}

// aheadBody is a request body read ahead while its request waits for a
// place, up to a bound: the bytes read are handed on first, then the rest
// of the body as it comes (whoever reads it applies the body's own limit).
type aheadBody struct {
	body io.ReadCloser
	max  int64         // the bytes to read ahead
	done chan struct{} // closed when the read ahead is over
	head []byte        // what was read ahead: max+1 bytes when the body is longer
	err  error
	rest io.Reader
}

// newAheadBody starts reading body ahead, at most max bytes (0:
// DefaultMaxBodyBytes). failed is called when the body cannot be read (its
// client went away before sending all of it).
func newAheadBody(body io.ReadCloser, max int64, failed func()) *aheadBody {
	if max <= 0 {
		max = DefaultMaxBodyBytes
	}
	b := &aheadBody{body: body, max: max, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.head, b.err = io.ReadAll(io.LimitReader(body, max+1))
		if b.err != nil {
			failed()
		}
	}()
	return b
}

func (b *aheadBody) Read(p []byte) (int, error) {
	<-b.done
	if b.rest == nil {
		b.rest = io.MultiReader(bytes.NewReader(b.head), errReader{b.err}, b.body)
	}
	return b.rest.Read(p)
}

func (b *aheadBody) Close() error { return b.body.Close() }

// errReader fails with err, or is empty when err is nil.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// wake tells the requests waiting that something changed; g.mu is held.
func (g *gate) wake() {
	if g.freed != nil {
		close(g.freed)
		g.freed = nil
	}
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	g.wake()
	g.settle()
}

// leaveFree is leave for a request let in beside the bound.
func (g *gate) leaveFree() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.free--
	g.settle()
}

// settle closes idle once the gate is closed and the last request has
// left; g.mu is held.
func (g *gate) settle() {
	if g.closed && g.n == 0 && g.free == 0 {
		close(g.idle)
	}
}

// close lets no more requests in; the channel is closed once the last one
// has left.
func (g *gate) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.wake()
	g.idle = make(chan struct{})
	g.settle()
	return g.idle
}
