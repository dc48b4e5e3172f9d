package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/schema"
)

// maxLineBytes bounds a message of the stdio transport: the largest
// arguments a tool call may carry (schema.MaxArgsBytes, whose calls are
// answered with the validation failure a model can act on) and 1 MiB for
// the rest of the message. A longer line is never held whole: it is read
// on to its end, answered with a JSON-RPC error and the session goes on.
// A variable for the tests.
var maxLineBytes = schema.MaxArgsBytes + 1<<20

// lineReader reads the messages of the stdio transport: one a line, with
// the white space around it (a CR before the LF) trimmed, empty lines
// skipped.
type lineReader struct {
	r   *bufio.Reader
	err error // the error that ended the input, once read
}

func newLineReader(in io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10)}
}

// next returns the next message, or, for a line longer than maxLineBytes,
// the error response that answers it (msg nil), or the error that ended
// the input (io.EOF at its end), when no message precedes it.
func (lr *lineReader) next() (msg []byte, tooLong []byte, err error) {
	for lr.err == nil {
		var line []byte
		var sc *idScanner // set once the line is too long: it is only scanned
		n := 0
		for {
			part, rerr := lr.r.ReadSlice('\n')
			n += len(part)
			switch {
			case sc != nil:
				sc.scan(part)
			case n > maxLineBytes:
				sc = &idScanner{}
				sc.scan(line)
				sc.scan(part)
				line = nil
			default:
				line = append(line, part...)
			}
			if errors.Is(rerr, bufio.ErrBufferFull) {
				continue
			}
			// The error, if any, comes with the next call.
			lr.err = rerr
			if sc != nil {
				return nil, lineTooLong(sc.found(), n), nil
			}
			if m := bytes.TrimSpace(line); len(m) > 0 {
				return m, nil, nil
			}
			break // an empty line
		}
	}
	return nil, nil, lr.err
}

// lineTooLong is the answer to a line of n bytes (its end included), over
// maxLineBytes, with
// the request id it held (null when none was found).
func lineTooLong(id json.RawMessage, n int) []byte {
	if id == nil {
		id = nullID
	}
	b, _ := jsonenc.Marshal(errorResponse(id, errorf(codeInvalidRequest,
		"Invalid Request: a line of %d bytes, over the %d a message may have, was not read (tool arguments over %d bytes are not accepted: send big content in smaller calls)",
		n, maxLineBytes, schema.MaxArgsBytes)))
	return b
}

// notJSON is the answer to a message that is not JSON: the parse error,
// for the id the message holds when one can be read (so that the client
// learns which request failed, rather than waiting for its answer), with
// a hint when the message ends inside a string, as a message broken in
// two by a raw line break does.
func notJSON(msg []byte) *response {
	var s idScanner
	s.scan(msg)
	id := s.found()
	if id == nil {
		id = nullID
	}
	why := ""
	if s.inString {
		why = ": it ends inside a string (a line break in a string is written \\n)"
	}
	return errorResponse(id, errorf(codeParseError, "Parse error: the message is not JSON%s", why))
}

// idScanner finds the id of a JSON-RPC message read piece by piece,
// without keeping it: the value of the member "id" of the object that is
// the whole message, when it is a string or a number of at most
// maxIDBytes. It only follows strings and nesting, so text that is not
// JSON gives no id, or one that is not a valid id.
type idScanner struct {
	depth     int
	inString  bool
	escaped   bool
	expectKey bool   // the next string at depth 1 is a member's name
	key       []byte // the name being read, or the last one read (up to 3 bytes)
	keyLong   bool   // the name is longer than "id"
	inValue   bool   // reading the value of "id"
	value     []byte
	id        json.RawMessage
}

const maxIDBytes = 1 << 10

func (s *idScanner) scan(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.inString && !s.escaped && !s.inValue && (s.depth != 1 || !s.expectKey) {
			// A string nothing is kept of (the content of a write): on
			// to its end, or to an escape, at once.
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
		}
		c := p[i]
		if s.inValue && (s.depth > 1 || s.inString || c != ',' && c != '}') {
			if len(s.value) <= maxIDBytes {
				s.value = append(s.value, c)
			}
		}
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			case s.depth == 1 && s.expectKey:
				if len(s.key) < 3 {
					s.key = append(s.key, c)
				} else {
					s.keyLong = true
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
			if s.depth == 1 && s.expectKey {
				s.key, s.keyLong = s.key[:0], false
			}
		case '{', '[':
			s.depth++
			if s.depth == 1 {
				s.expectKey = c == '{'
			}
		case '}', ']':
			if s.depth == 1 {
				s.endValue()
			}
			s.depth--
		case ':':
			if s.depth == 1 && s.expectKey {
				s.expectKey = false
				s.inValue = !s.keyLong && string(s.key) == "id"
				s.value = s.value[:0]
			}
		case ',':
			if s.depth == 1 {
				s.endValue()
				s.expectKey = true
			}
		}
	}
}

// endValue ends the value of a member at depth 1.
func (s *idScanner) endValue() {
	if !s.inValue {
		return
	}
	s.inValue = false
	v := bytes.TrimSpace(s.value)
	if len(v) <= maxIDBytes && validID(v) && json.Valid(v) {
		s.id = append(json.RawMessage(nil), v...)
	}
}

// found is the id the message held, or nil.
func (s *idScanner) found() json.RawMessage { return s.id }
