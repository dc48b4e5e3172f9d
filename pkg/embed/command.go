package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/runner"
)

// Command is an embedder program: it reads {"texts": [...]} on stdin and
// prints {"embeddings": [[...], ...]}, one vector per text, in order.
type Command struct {
	Argv  []string
	Name  string // the model name; "" names the vectors by the command line
	Dir   string
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
		msg := err.Error()
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
		why := `no "embeddings" array`
		if err != nil {
			why = firstLine(err.Error())
		}
		return nil, &Error{Endpoint: ep, Msg: `did not print {"embeddings": [[...]]}: ` + why}
	}
	return toFloat32(ep, *ans.Embeddings)
}
