package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/runner"
)

// Command is an embedder program: it reads {"texts": [...]} on stdin and
// prints {"embeddings": [[...], ...]}, one vector per text, in order.
type Command struct {
	Argv  []string
	Name  string // the model name; "" names the vectors by the command line
	Dir   string // where it runs: the workspace root
	Env   []string
	Batch int // texts per run; 0: DefaultMaxBatch
	// Timeout bounds one run; 0: DefaultTimeout.
	Timeout time.Duration
}

// Model is the configured name, or the command line.
func (c *Command) Model() string {
	if c.Name != "" {
		return c.Name
	}
	return strings.Join(c.Argv, " ")
}

// Endpoint names the command.
func (c *Command) Endpoint() string { return "command " + strings.Join(c.Argv, " ") }

// Embed runs the command once per batch.
func (c *Command) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return batches(ctx, c.Endpoint(), texts, c.Batch, c.run)
}

func (c *Command) run(ctx context.Context, texts []string) ([][]float32, error) {
	ep := c.Endpoint()
	in, err := json.Marshal(struct {
		Texts []string `json:"texts"`
	}{texts})
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	res, err := runner.Run(ctx, runner.Cmd{Argv: c.Argv, Dir: c.Dir, Env: c.Env, Stdin: in, Timeout: timeout, MaxOutput: maxAnswerBytes})
	if err != nil {
		var sig *runner.SignalError
		if errors.As(err, &sig) || ctx.Err() != nil {
			return nil, err
		}
		msg := runner.StartError(c.Argv[0], "the workspace root", err).Error()
		if res != nil {
			if l := firstLine(string(res.Stderr)); l != "" {
				msg += ": " + l
			}
		}
		return nil, &Error{Endpoint: ep, Msg: msg, Err: err}
	}
	if res.Truncated {
		return nil, &Error{Endpoint: ep, Msg: "printed more than 256 MiB"}
	}
	var ans struct {
		Embeddings *[][]float64 `json:"embeddings"`
	}
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	if err := dec.Decode(&ans); err != nil || ans.Embeddings == nil {
		return nil, &Error{Endpoint: ep, Msg: `did not print {"embeddings": [[...]]}: ` + answerProblem(res.Stdout, err)}
	}
	return toFloat32(ep, *ans.Embeddings)
}

// answerProblem says what is wrong with out, a command's answer that err
// (from decoding it; nil: it has no "embeddings") refused, in words
// rather than encoding/json's ("invalid character 'o' in literal null").
func answerProblem(out []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return `no "embeddings" array`
	case errors.Is(err, io.EOF):
		return "it printed nothing"
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("what it printed is not JSON: %q", firstLine(strings.TrimSpace(string(out))))
	case errors.As(err, &typ) && typ.Field == "":
		return "what it printed is not a JSON object"
	}
	return `"embeddings" must be an array of arrays of numbers`
}
