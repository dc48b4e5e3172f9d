package remote

import (
	"encoding/binary"
	"io"
	"sync"
)

// stdinWindow is how many bytes of stdin may be on their way to the
// server, not yet read by the command. The server gives the client that
// much credit when the command first reads, and as much again as the
// command reads, so its reading of frames never waits on a command that
// leaves its stdin unread: a signal or a ping behind the stdin bytes is
// still read at once (before, `yes | ws --remote … exec --stdin -- CMD`
// with a CMD that did not read held the stream, and a ^C never got through).
const stdinWindow = 1 << 20

// creditFrame is a kindCredit payload: n more bytes of stdin.
func creditFrame(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// stdinQueue is the server's stdin: the bytes that came and the command
// has not read yet. A client that does not keep to its credit (an earlier
// ws) is held once a window is queued, as a pipe would hold it.
type stdinQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	bufs   [][]byte
	queued int
	done   bool
	err    error // io.EOF or why the stream ended
	unpaid int   // bytes read since the last credit
	// credit gives the client credit for n more bytes.
	credit func(n int)
}

func newStdinQueue(credit func(int)) *stdinQueue {
	q := &stdinQueue{credit: credit}
	q.cond.L = &q.mu
	return q
}

// push queues p; hold is called when it has to wait for the command.
func (q *stdinQueue) push(p []byte, hold func() (release func())) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued >= stdinWindow && !q.done {
		release := hold()
		for q.queued >= stdinWindow && !q.done {
			q.cond.Wait()
		}
		release()
	}
	if q.done {
		return
	}
	q.bufs = append(q.bufs, p)
	q.queued += len(p)
	q.cond.Broadcast()
}

// end ends stdin: with io.EOF, or an error once the queued bytes are read.
func (q *stdinQueue) end(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
	q.cond.Broadcast()
}

// close drops what is queued and wakes a push (the session is over).
func (q *stdinQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done, q.bufs, q.queued = true, nil, 0
	if q.err == nil {
		q.err = io.ErrClosedPipe
	}
	q.cond.Broadcast()
}

func (q *stdinQueue) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	q.mu.Lock()
	for len(q.bufs) == 0 && q.err == nil {
		q.cond.Wait()
	}
	if len(q.bufs) == 0 {
		err := q.err
		q.mu.Unlock()
		return 0, err
	}
	n := copy(p, q.bufs[0])
	if q.bufs[0] = q.bufs[0][n:]; len(q.bufs[0]) == 0 {
		q.bufs = q.bufs[1:]
	}
	q.queued -= n
	q.unpaid += n
	pay := 0
	if q.unpaid >= stdinWindow/4 {
		pay, q.unpaid = q.unpaid, 0
	}
	q.cond.Broadcast()
	q.mu.Unlock()
	if pay > 0 {
		q.credit(pay)
	}
	return n, nil
}

// credit is, on the client, what the server lets it send of stdin. Until
// a server gives credit (an earlier ws never does), there is no bound.
type credit struct {
	mu     sync.Mutex
	cond   sync.Cond
	on     bool
	n      int
	closed bool
}

func newCredit() *credit {
	c := &credit{}
	c.cond.L = &c.mu
	return c
}

// add gives n more bytes.
func (c *credit) add(n int) {
	c.mu.Lock()
	c.on = true
	c.n += n
	c.cond.Broadcast()
	c.mu.Unlock()
}

// wait returns how much may be sent now, at most max, waiting for
// credit; 0 once the session is over.
func (c *credit) wait(max int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.on && c.n == 0 && !c.closed {
		c.cond.Wait()
	}
	switch {
	case c.closed:
		return 0
	case !c.on:
		return max
	}
	return min(max, c.n)
}

// spend takes n bytes sent.
func (c *credit) spend(n int) {
	c.mu.Lock()
	if c.on {
		c.n -= n
	}
	c.mu.Unlock()
}

// close ends the waits: the session is over.
func (c *credit) close() {
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
}
