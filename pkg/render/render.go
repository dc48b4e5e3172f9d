package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/workspace"
)

// IO holds the streams a command uses and what is known about them.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool
	OutTTY bool
}

// Envelope is the JSON form of every tool outcome.
type Envelope struct {
	OK     bool       `json:"ok"`
	Tool   string     `json:"tool"`
	Output string     `json:"output"`
	Error  *ErrorBody `json:"error"`
	Data   any        `json:"data"`
}

// ErrorBody is the error part of the envelope.
type ErrorBody struct {
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
}

// Result prints one tool outcome. In text mode a result's text goes to
// stdout with one newline after it (the text itself is the model's, byte
// for byte); an error goes to stderr as `ws: <message>`.
func Result(s *IO, asJSON bool, tool string, res workspace.Result, err error) error {
	if asJSON {
		env := Envelope{OK: err == nil, Tool: tool}
		// Output is the model's text: bytes that are not UTF-8 become
		// U+FFFD as JavaScript decodes them (not one per byte, as the JSON
		// encoder would); data keeps them.
		if err != nil {
			msg := js.DecodeUTF8([]byte(err.Error()))
			env.Error = &ErrorBody{Code: errs.CodeOf(err), Message: msg}
			env.Output = msg
			// A failure may carry data of its own (an upload's tripwire metadata).
			var d interface{ ErrorData() any }
			if errors.As(err, &d) {
				env.Data = d.ErrorData()
			}
		} else {
			env.Output = js.DecodeUTF8([]byte(res.Text()))
			env.Data = res
		}
		return JSON(s.Out, env)
	}
	if err != nil {
		return Error(s, err)
	}
	_, werr := io.WriteString(s.Out, res.Text()+"\n")
	return werr
}

// Error prints a failure in text mode.
func Error(s *IO, err error) error {
	_, werr := io.WriteString(s.Err, "ws: "+message(err)+"\n")
	return werr
}

func message(err error) string {
	msg := err.Error()
	var we *errs.Error
	if !errors.As(err, &we) {
		msg = strings.TrimSuffix(msg, "\n")
	}
	return msg
}

// ModelResult is Result for ws call, whose text is what a model is handed:
// bytes that are not UTF-8 (a file name in a listing) print as U+FFFD, as
// JavaScript's decoder gives them to Mastra's model and as ws mcp sends
// them, so a shim that reads the output as text does not fail on it.
// --json is Result's: its data keeps such bytes ({"bytes": base64}).
func ModelResult(s *IO, asJSON bool, tool string, res workspace.Result, err error) error {
	switch {
	case asJSON:
		return Result(s, asJSON, tool, res, err)
	case err != nil:
		_, werr := io.WriteString(s.Err, js.DecodeUTF8([]byte("ws: "+message(err)+"\n")))
		return werr
	}
	_, werr := io.WriteString(s.Out, js.DecodeUTF8([]byte(res.Text()))+"\n")
	return werr
}

// JSON writes v as one line of JSON, HTML characters unescaped.
func JSON(w io.Writer, v any) error {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// IndentedJSON writes v indented by two spaces, for documents people read.
func IndentedJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Stream prints a streaming tool's output as it comes (ps-output
// --follow): in text mode each chunk goes to stdout or stderr as it was
// written, and the final text to stdout on a line of its own; with JSON,
// one {"type","data"} object per line: "stdout"/"stderr" chunks, then
// "exit" with the result, or "error".
type Stream struct {
	io      *IO
	json    bool
	endedNL bool // the last chunk on stdout ended a line (or there was none)
	wrote   bool
}

// NewStream starts a stream on s.
func NewStream(s *IO, asJSON bool) *Stream { return &Stream{io: s, json: asJSON, endedNL: true} }

type streamLine struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// Chunk prints one piece of output.
func (st *Stream) Chunk(c workspace.FollowChunk) error {
	if st.json {
		return JSON(st.io.Out, streamLine{Type: c.Stream, Data: c.Data})
	}
	w := st.io.Out
	if c.Stream == "stderr" {
		w = st.io.Err
	} else {
		st.endedNL = c.Data[len(c.Data)-1] == '\n'
	}
	st.wrote = true
	_, err := w.Write(c.Data)
	return err
}

// End prints how the stream ended: the result, or the error.
func (st *Stream) End(tool string, res workspace.Result, err error) error {
	if st.json {
		if err != nil {
			return JSON(st.io.Out, streamLine{Type: "error", Data: ErrorBody{Code: errs.CodeOf(err), Message: err.Error()}})
		}
		return JSON(st.io.Out, streamLine{Type: "exit", Data: res})
	}
	if err != nil {
		return Error(st.io, err)
	}
	sep := ""
	if !st.endedNL {
		sep = "\n"
	}
	if st.wrote {
		sep += "\n"
	}
	_, werr := io.WriteString(st.io.Out, sep+res.Text()+"\n")
	return werr
}
