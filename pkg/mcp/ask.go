package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/workspace"
)

// Requests from the server to the client. ws sends one kind: the
// elicitation that asks the user to approve a tool call.

// errInputEnded fails a request the client can no longer answer.
var errInputEnded = errors.New("the client's input ended before it answered")

// errNoSender fails a request on a transport that cannot send one.
var errNoSender = errors.New("this transport cannot send requests to the client")

// setSender gives the handler the way to send a message to the client
// outside the answers: a line on stdout (Serve), an event on the stream
// of the POST that carries the call (ServeHTTP). ctx is the call's, as
// accept was given it; send fails when the message cannot go out.
// Without a sender the handler never asks the client anything.
func (h *Handler) setSender(send func(ctx context.Context, msg []byte) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.send = send
}

// endInput tells the handler that no more messages will come: requests
// waiting for the client's answer fail at once.
func (h *Handler) endInput() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inputEnded = true
	for key, ch := range h.asks {
		ch <- &reply{err: &rpcError{Code: codeInternalError, Message: errInputEnded.Error()}}
		delete(h.asks, key)
	}
}

// request sends method to the client and waits for its answer, or for
// ctx (then the client is told the request is cancelled).
func (h *Handler) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	h.mu.Lock()
	if h.send == nil {
		h.mu.Unlock()
		return nil, errNoSender
	}
	if h.inputEnded {
		h.mu.Unlock()
		return nil, errInputEnded
	}
	h.lastAsk++
	id := h.lastAsk
	key := strconv.FormatInt(id, 10)
	ch := make(chan *reply, 1)
	h.asks[key] = ch
	send := h.send
	h.mu.Unlock()

	msg, err := jsonenc.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		h.forget(key)
		return nil, err
	}
	if err := send(ctx, msg); err != nil {
		h.forget(key)
		return nil, err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, errors.New(r.err.Message)
		}
		return r.result, nil
	case <-ctx.Done():
		h.forget(key)
		if msg, err := jsonenc.Marshal(notification{JSONRPC: "2.0", Method: "notifications/cancelled",
			Params: map[string]any{"requestId": id, "reason": "the tool call was cancelled"}}); err == nil {
			send(ctx, msg)
		}
		return nil, ctx.Err()
	}
}

func (h *Handler) forget(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.asks, key)
}

// deliver hands the client's response to the request waiting for it; a
// response nobody waits for (a late one, an unknown id) is dropped.
func (h *Handler) deliver(c *call) {
	key := idKey(c.id)
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch, ok := h.asks[key]; ok {
		ch <- c.reply
		delete(h.asks, key)
	}
}

// elicitRequest is the params of elicitation/create: a message and the
// form to fill. Approval needs no field: accepting is the yes.
type elicitRequest struct {
	Message         string       `json:"message"`
	RequestedSchema elicitSchema `json:"requestedSchema"`
}

type elicitSchema struct {
	Type       string   `json:"type"` // "object"
	Properties struct{} `json:"properties"`
}

// approver asks the client's user to approve a call, through elicitation
// when the client declared it, and otherwise refuses with a message that
// says why. ctx is the tool call's: cancelling it withdraws the question.
func (h *Handler) approver(ctx context.Context) workspace.Approver {
	can := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.elicit
	}
	return approval(ctx, can, func(ctx context.Context, message string) (string, error) {
		raw, err := h.request(ctx, "elicitation/create", elicitRequest{
			Message:         message,
			RequestedSchema: elicitSchema{Type: "object"},
		})
		if err != nil {
			return "", err
		}
		var answer struct {
			Action string `json:"action"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return "", errors.New("the answer is not an elicitation result: " + mistyped(err))
		}
		return answer.Action, nil
	})
}

// approval is the approver of both transports: can tells whether the
// client can be asked, ask puts the question (an elicitation with no
// field: accepting is the yes) and returns the action the user chose.
func approval(ctx context.Context, can func() bool, ask func(ctx context.Context, message string) (string, error)) workspace.Approver {
	return func(tool, summary string) (bool, error) {
		if !can() {
			return false, errs.CannotAsk(tool)
		}
		action, err := ask(ctx, "Allow "+summary+"?")
		if err != nil {
			if ctx.Err() != nil {
				return false, errs.AskFailed(tool, "the call was cancelled")
			}
			return false, errs.AskFailed(tool, err.Error())
		}
		switch action {
		case "accept":
			return true, nil
		case "decline", "cancel":
			return false, nil
		}
		return false, errs.AskFailed(tool, "unknown action "+strconv.Quote(action))
	}
}

// canElicit reads the client's capabilities: elicitation declared, in
// form mode (an empty object means form; a client that lists modes must
// list "form").
func canElicit(caps json.RawMessage) bool {
	var c struct {
		Elicitation map[string]json.RawMessage `json:"elicitation"`
	}
	if json.Unmarshal(caps, &c) != nil || c.Elicitation == nil {
		return false
	}
	if len(c.Elicitation) == 0 {
		return true
	}
	_, form := c.Elicitation["form"]
	return form
}
