package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// nullID answers a message whose id could not be read.
var nullID = json.RawMessage("null")

// response is a JSON-RPC response: Result or Error, never both.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func errorResponse(id json.RawMessage, err *rpcError) *response {
	return &response{JSONRPC: "2.0", ID: id, Error: err}
}

// request is a JSON-RPC request the server sends to the client.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// notification is a JSON-RPC notification the server sends.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// call is one checked request (id set) or notification (id nil), or the
// client's response to a request of the server's (reply set).
type call struct {
	id     json.RawMessage
	method string
	params json.RawMessage // nil when absent or null
	reply  *reply
}

// reply is a response the client sent: its result or its error.
type reply struct {
	result json.RawMessage
	err    *rpcError
}

// decodeMessage checks one JSON-RPC message (a JSON value, not a batch).
// It returns the call, or the error response to send instead, or
// neither for a message that needs no answer (a response without a
// usable id, which nothing can be waiting for).
func decodeMessage(raw json.RawMessage) (*call, *response) {
	m, ok := objectMembers(raw)
	if !ok {
		return nil, errorResponse(nullID, errorf(codeInvalidRequest, "Invalid Request: a message must be a JSON object"))
	}
	rawMethod, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	id, hasID := m["id"]
	if !hasMethod && (hasResult || hasError) {
		if !hasID || !validID(id) {
			return nil, nil
		}
		r := &reply{result: m["result"]}
		if hasError {
			r.err = &rpcError{}
			if json.Unmarshal(m["error"], r.err) != nil {
				r.err = &rpcError{Code: codeInternalError, Message: "the error is not a JSON-RPC error object"}
			}
		}
		return &call{id: id, reply: r}, nil
	}
	if hasID && !validID(id) {
		if !utf8.Valid(id) {
			// Echoed, it would make the answer not JSON text either.
			return nil, errorResponse(nullID, errorf(codeInvalidRequest, "Invalid Request: id is not valid UTF-8"))
		}
		return nil, errorResponse(nullID, errorf(codeInvalidRequest, "Invalid Request: id must be a string or a number"))
	}
	answerID := id
	if !hasID {
		answerID = nullID
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, errorResponse(answerID, errorf(codeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`))
	}
	if !hasMethod {
		return nil, errorResponse(answerID, errorf(codeInvalidRequest, "Invalid Request: no method"))
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return nil, errorResponse(answerID, errorf(codeInvalidRequest, "Invalid Request: method must be a string"))
	}
	c := &call{id: id, method: method}
	if p, ok := m["params"]; ok && string(p) != "null" {
		if p[0] != '{' {
			if !hasID {
				return nil, nil // a notification is never answered
			}
			return nil, errorResponse(id, errorf(codeInvalidParams, "Invalid params: params must be an object"))
		}
		c.params = p
	}
	return c, nil
}

// carriesRequest reports whether a body may carry a request: it is not
// one or more JSON objects of which none has both a method and an id
// (responses and notifications only, which run nothing).
func carriesRequest(body []byte) bool {
	body = bytes.TrimSpace(body)
	raws := []json.RawMessage{body}
	if len(body) > 0 && body[0] == '[' {
		var ok bool
		if raws, ok = arrayElements(body); !ok || len(raws) == 0 {
			return true
		}
	}
	for _, raw := range raws {
		m, ok := objectMembers(raw)
		if !ok {
			return true
		}
		_, method := m["method"]
		_, id := m["id"]
		if method && id {
			return true
		}
	}
	return false
}

// validID reports whether a request id is a string or a number (MCP
// forbids null; JSON-RPC allows nothing else).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return utf8.Valid(id) // JSON text is UTF-8: the id is sent back as it came
	case c == '-' || c >= '0' && c <= '9':
		return true
	}
	return false
}

// idKey is a request id as a map key: its compact JSON text, so that 1
// and "1" are different requests.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
