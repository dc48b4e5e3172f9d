package remote

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Frame kinds. From the client (on the transport's stdin):
const (
	kindHeader   = 'H' // the Header, JSON
	kindFileData = 'F' // bytes of the current input file
	kindFileEnd  = 'f' // the current input file ends; JSON fileEnd
	kindStdin    = 'D' // bytes of stdin
	kindStdinEOF = 'E' // stdin ended
	kindSignal   = 'S' // the local ws got a signal: one byte, its number
	// kindPing says the side is still there (both ways, every heartbeat,
	// once the header asked for it: an earlier ws ignores it).
	kindPing = 'P'
	// kindPause and kindResume: the local ws is stopped (^Z) and runs
	// again; the server does not watch for silence in between.
	kindPause  = 'Z'
	kindResume = 'z'
)

// From the server (on the transport's stderr, after the marker):
const (
	kindStderr    = 'e' // bytes of the command's stderr
	kindWantStdin = 'I' // the command reads stdin: send it
	kindExit      = 'X' // the command ended: its exit status, decimal
	// kindPull, first after the marker: the server asks for each input
	// file with kindWantFile (its index in the header, decimal) when the
	// command reads it; the client sends it then, as kindFileData frames
	// and a kindFileEnd, one file at a time, in the order asked.
	kindPull     = 'L'
	kindWantFile = 'W'
	// kindCredit lets the client send more stdin: 4 bytes, big-endian,
	// how many (an earlier client ignores it).
	kindCredit = 'C'
)

// marker is what the server writes first on stderr. What the transport
// prints before it (an ssh warning, a shell's "ws: not found") is its own.
const marker = "\x00ws-remote/1\x00"

// maxFrame bounds a frame's payload; data is sent in chunks this size.
const maxFrame = 64 << 10

// frameWriter writes frames; it is safe for concurrent use.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (fw *frameWriter) frame(kind byte, payload []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	var head [5]byte
	head[0] = kind
	binary.BigEndian.PutUint32(head[1:], uint32(len(payload)))
	if _, err := fw.w.Write(head[:]); err != nil {
		return err
	}
	_, err := fw.w.Write(payload)
	return err
}

// data writes p as frames of kind, in chunks of at most maxFrame bytes.
func (fw *frameWriter) data(kind byte, p []byte) error {
	for len(p) > 0 {
		n := min(len(p), maxFrame)
		if err := fw.frame(kind, p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// streamWriter is an io.Writer whose writes become frames of one kind
// (the server's stderr).
type streamWriter struct {
	fw   *frameWriter
	kind byte
}

func (s streamWriter) Write(p []byte) (int, error) {
	if err := s.fw.data(s.kind, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// errBadFrame is a stream that is not made of frames.
var errBadFrame = errors.New("remote: malformed frame")

// readFrame reads one frame. io.EOF means the stream ended between frames.
func readFrame(r *bufio.Reader) (kind byte, payload []byte, err error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, nil, errBadFrame
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > maxFrame && head[0] != kindHeader {
		return 0, nil, fmt.Errorf("%w: %d bytes", errBadFrame, n)
	}
	if n > 16<<20 {
		return 0, nil, fmt.Errorf("%w: header of %d bytes", errBadFrame, n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, errBadFrame
	}
	return head[0], payload, nil
}
