package workspace

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
)

// FollowChunk is a piece of a followed process's output, as it came.
type FollowChunk struct {
	Stream string `json:"stream"` // "stdout" or "stderr"
	Data   Bytes  `json:"data"`
}

// FollowResult is how following a process ended: it exited (its code is
// in Process), or the wait ran out.
type FollowResult struct {
	Process
	StillRunning bool `json:"still_running"`
	textOut
}

// followPoll is how often a followed process's logs are looked at.
const followPoll = 100 * time.Millisecond

// Follow streams a background process's output to emit as it is written,
// until the process exits (then the result carries its exit code), the
// wait (req.WaitTimeout) runs out, or ctx ends. It starts with the last
// req.Tail lines of each stream (default 200; 0: all), or with sinceLast
// where this thread stopped reading; the thread's cursor follows along.
// With a filter only whole matching lines are passed on.
func (w *Workspace) Follow(ctx context.Context, req ProcessOutputRequest, emit func(FollowChunk) error) (*FollowResult, error) {
	filter, e, err := w.outputOf(req)
	if err != nil {
		return nil, err
	}
	dir := w.procStore().Dir(e.Record.ID)
	streams := []*followed{{name: "stdout", log: procstate.LogNames[0]}, {name: "stderr", log: procstate.LogNames[1]}}
	since := req.SinceLast != nil && *req.SinceLast
	cur, err := procstate.ReadCursor(dir, w.thread)
	if err != nil {
		cur = procstate.Cursor{} // everything again
		if since {
			w.warn(damagedCursor(e.Record.PID))
		}
	}
	for i, s := range streams {
		if since {
			s.pos = []int64{cur.Stdout, cur.Stderr}[i]
			continue
		}
		// From the very start when all that is kept is shown, so that the
		// first pass says what was dropped.
		if s.pos, err = procstate.TailStart(dir, s.log, tailOf(req.Tail)); err != nil {
			return nil, w.stateError(err)
		}
	}
	deadline := waitDeadline(req.WaitTimeout)
	for {
		// The exit is read before the logs: once it is there, the logs
		// hold everything the process wrote.
		now, gone, err := w.loadState(e)
		if err != nil {
			return nil, err
		}
		for _, s := range streams {
			if err := s.pass(w, dir, filter, gone, emit); err != nil {
				return nil, err
			}
		}
		if next := (procstate.Cursor{Stdout: streams[0].pos, Stderr: streams[1].pos}); next != cur {
			_ = procstate.WriteCursor(dir, w.thread, next)
			cur = next
		}
		res := &FollowResult{Process: processOf(now)}
		switch {
		case now.Exit != nil:
			res.text = "Exit code: " + strconv.Itoa(now.Exit.ExitCode)
			if u := unkept(now.Exit); u != nil {
				res.text = u[1] + "\n" + res.text
			}
			return res, nil
		case gone:
			res.text = lostText
			return res, nil
		case !deadline.IsZero() && time.Now().After(deadline):
			res.StillRunning = true
			res.text = fmt.Sprintf("[still running after following %ss]", js.FormatNumber(*req.WaitTimeout))
			return res, nil
		}
		select {
		case <-ctx.Done():
			return nil, errs.InterruptedBy(context.Cause(ctx), "following process "+req.PID)
		case <-time.After(followPoll):
		}
	}
}

// followed is one stream being followed.
type followed struct {
	name, log string
	pos       int64  // how far it was passed on, counted from the first byte written
	partial   []byte // with a filter: the start of a line not yet complete
}

// pass hands on what was written since the last pass; last: the process
// has ended, so a partial line is complete.
func (s *followed) pass(w *Workspace, dir string, filter *lineFilter, last bool, emit func(FollowChunk) error) error {
	b, start, err := procstate.ReadLogFrom(dir, s.log, s.pos)
	if err != nil {
		return w.stateError(err)
	}
	if len(b) == 0 && !(last && len(s.partial) > 0) {
		return nil
	}
	var notice []byte
	if start > s.pos {
		notice = fmt.Appendf(nil, "[%d bytes of output were dropped (over the per-stream cap)]\n", start-s.pos)
	}
	chunk := b
	s.pos = start + int64(len(b))
	if filter != nil {
		chunk = append(s.partial, chunk...)
		s.partial = nil
		if i := bytes.LastIndexByte(chunk, '\n'); !last && i < len(chunk)-1 {
			s.partial = append([]byte(nil), chunk[i+1:]...)
			chunk = chunk[:i+1]
		}
		chunk = filter.keep(chunk)
	}
	// The notice of dropped output is shown, filter or not.
	chunk = append(notice, chunk...)
	if len(chunk) == 0 {
		return nil
	}
	return emit(FollowChunk{Stream: s.name, Data: chunk})
}
