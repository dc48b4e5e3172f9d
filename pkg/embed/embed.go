package embed

import (
	"context"
	"fmt"
	"math"

	"github.com/wstools/ws/pkg/internal/wording"
)

// Embedder makes one vector of each text, in order.
type Embedder interface {
	// Embed returns one vector per text, all of the same dimension.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the vectors' model: a change of it means every
	// document must be embedded again.
	Model() string
	// Endpoint is what messages call the embedder: its URL (without
	// credentials) or its command.
	Endpoint() string
}

// DefaultMaxBatch is the number of texts sent in one request when the
// config names none.
const DefaultMaxBatch = 64

// Error is an embedder failure. Its message names the endpoint, never the
// API key.
type Error struct {
	Endpoint string
	Msg      string
	// Retryable: the endpoint answered 429 or 5xx, or timed out.
	Retryable bool
	Err       error
}

func (e *Error) Error() string { return "embedder " + e.Endpoint + ": " + e.Msg }

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// batches calls f with consecutive pieces of texts of at most n each and
// joins the vectors, checking each answer.
func batches(ctx context.Context, endpoint string, texts []string, n int, f func(context.Context, []string) ([][]float32, error)) ([][]float32, error) {
	if n <= 0 {
		n = DefaultMaxBatch
	}
	out := make([][]float32, 0, len(texts))
	dim := 0
	for start := 0; start < len(texts); start += n {
		part := texts[start:min(len(texts), start+n)]
		vecs, err := f(ctx, part)
		if err != nil {
			return nil, err
		}
		if err := Check(endpoint, vecs, len(part), dim); err != nil {
			return nil, err
		}
		if len(vecs) > 0 {
			dim = len(vecs[0])
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// countMismatch words an answer with got embeddings for n texts.
func countMismatch(got, n int) string {
	return fmt.Sprintf("returned %d %s for %d %s", got, wording.Plural(got, "embedding", "embeddings"), n, wording.Plural(n, "text", "texts"))
}

// Check refuses an answer that is not one vector per text, all of one
// dimension (dim, when it is not 0), with finite numbers only.
func Check(endpoint string, vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return &Error{Endpoint: endpoint, Msg: countMismatch(len(vecs), n)}
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return &Error{Endpoint: endpoint, Msg: fmt.Sprintf("returned an empty embedding (text %d)", i)}
		}
		if dim == 0 {
			dim = len(v)
		}
		if len(v) != dim {
			return &Error{Endpoint: endpoint, Msg: fmt.Sprintf("returned embeddings of different dimensions (%d and %d)", dim, len(v))}
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return &Error{Endpoint: endpoint, Msg: fmt.Sprintf("returned a number that is not finite (text %d)", i)}
			}
		}
	}
	return nil
}

// toFloat32 converts decoded numbers, refusing those a float32 cannot
// hold.
func toFloat32(endpoint string, in [][]float64) ([][]float32, error) {
	out := make([][]float32, len(in))
	for i, v := range in {
		f := make([]float32, len(v))
		for j, x := range v {
			if math.Abs(x) > math.MaxFloat32 {
				return nil, &Error{Endpoint: endpoint, Msg: fmt.Sprintf("returned a number too large for float32 (text %d)", i)}
			}
			f[j] = float32(x)
		}
		out[i] = f
	}
	return out, nil
}

// firstLine is the first non-empty line of s, cut to a sensible length.
func firstLine(s string) string {
	return wording.Excerpt(wording.FirstLine(s), 300)
}
