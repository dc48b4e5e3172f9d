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
// that has to wait reads its body meanwhile, up to maxBody (0:
// DefaultMaxBodyBytes): once the body is read, the server notices a
// client that goes away (it cancels the request's context), so the
// client's place among the waiting comes back at once, not when the wait
// is over.
func limitPosts(posts *gate, maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		gone, cancel := context.WithCancel(r.Context())
		defer cancel()
		readAhead := func() { r.Body = newAheadBody(r.Body, maxBody, cancel) }
		if status, msg := posts.enter(gone, readAhead); status != 0 {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			httpError(w, status, msg)
			return
		}
		defer posts.leave()
		next.ServeHTTP(w, r)
	})
}

// gate counts the requests in flight, up to max (0: no bound), and once
// closed lets none in. A request beyond the bound waits up to queueWait
// for a place before it is refused, and at most max requests wait: a
// client that sends its next request the moment it has an answer is not
// refused because the handler of that answer is still returning.
type gate struct {
	mu      sync.Mutex
	n, max  int
	wait    time.Duration // how long one beyond the bound waits (queueWait when 0)
	waiting int
	closed  bool
	freed   chan struct{} // closed (and replaced) when a place comes back or the gate closes
	idle    chan struct{} // closed when closed and n is 0
}

// queueWait is how long a request beyond the bound waits for a place.
const queueWait = time.Second

// enter lets a request in, or says with which HTTP status it is refused.
// A request that has to wait runs waiting (when not nil) first, once; it
// gives up when ctx is done.
func (g *gate) enter(ctx context.Context, waiting func()) (int, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var timeout <-chan time.Time
	for {
		switch {
		case g.closed:
			return http.StatusServiceUnavailable, "the server is shutting down"
		case g.max == 0 || g.n < g.max:
			g.n++
			return 0, ""
		case g.waiting >= g.max:
			return http.StatusTooManyRequests, "too many requests at once"
		}
		if timeout == nil {
			t := time.NewTimer(cmp.Or(g.wait, queueWait))
			defer t.Stop()
			timeout = t.C
		}
		if g.freed == nil {
			g.freed = make(chan struct{})
		}
		freed := g.freed
		g.waiting++
		g.mu.Unlock()
		if waiting != nil {
			waiting()
			waiting = nil
		}
		var gaveUp bool
		select {
		case <-freed:
		case <-timeout:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		g.mu.Lock()
		g.waiting--
		if gaveUp && !g.closed && g.n >= g.max {
			return http.StatusTooManyRequests, "too many requests at once"
		}
	}
}

// aheadBody is a request body read ahead while its request waits for a
// place, up to a bound: the bytes read are handed on first, then the rest
// of the body as it comes (whoever reads it applies the body's own limit).
type aheadBody struct {
	body io.ReadCloser
	done chan struct{} // closed when the read ahead is over
	head []byte
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
	b := &aheadBody{body: body, done: make(chan struct{})}
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
	if g.closed && g.n == 0 {
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
	if g.n == 0 {
		close(g.idle)
	}
	return g.idle
}
