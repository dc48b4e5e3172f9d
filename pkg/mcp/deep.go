package mcp

import (
	"encoding/json"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/schema"
)

// goMaxDepth is how deeply encoding/json lets a document nest: to it, a
// deeper one is not JSON at all.
const goMaxDepth = 10000

// tooDeepForGo reports whether msg nests deeper than encoding/json reads.
// Such a message may still be a request whose id can be answered: its
// arguments are what nests (ws refuses them at schema.MaxDepth, with a
// validation result the client should get).
func tooDeepForGo(msg []byte) bool { return schema.DeeperThan(msg, goMaxDepth) }

// objectMembers is the JSON object raw as a map of its members' raw
// values, as json.Unmarshal into map[string]json.RawMessage gives it; for
// an object that nests deeper than encoding/json reads, the members are
// found by matching brackets instead. Each value is then either valid JSON
// or itself too deep, kept raw for whatever reads that member to refuse
// (a tool's arguments go to schema.CheckArgs, which refuses them for
// their depth before anything decodes them).
func objectMembers(raw []byte) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err == nil {
		return m, m != nil
	}
	if !tooDeepForGo(raw) {
		return nil, false
	}
	m = map[string]json.RawMessage{}
	ok := splitDeep(raw, '{', func(key string, v []byte) { m[key] = v })
	return m, ok
}

// arrayElements is objectMembers' counterpart for a JSON array (a batch).
func arrayElements(raw []byte) ([]json.RawMessage, bool) {
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err == nil {
		return a, true
	}
	if !tooDeepForGo(raw) {
		return nil, false
	}
	a = nil
	ok := splitDeep(raw, '[', func(_ string, v []byte) { a = append(a, v) })
	return a, ok
}

// splitsDeep reports whether msg, too deep for encoding/json, is an
// object or an array that splitDeep can take apart: it is JSON as far as
// ws reads it itself.
func splitsDeep(msg []byte) bool {
	each := func(string, []byte) {}
	return splitDeep(msg, '{', each) || splitDeep(msg, '[', each)
}

// splitDeep walks the object or array (open is '{' or '[') that is all of
// raw, calling each for each member's key ("" in an array) and value. It
// reports false for text that is not such a container of values that are
// each valid JSON or too deep for encoding/json.
func splitDeep(raw []byte, open byte, each func(key string, v []byte)) bool {
	closing := byte('}')
	if open == '[' {
		closing = ']'
	}
	i := jsonenc.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != open {
		return false
	}
	i = jsonenc.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == closing {
		return jsonenc.SkipSpace(raw, i+1) == len(raw)
	}
	for {
		var key string
		if open == '{' {
			if i >= len(raw) || raw[i] != '"' {
				return false
			}
			end := jsonenc.StringEnd(raw, i)
			if json.Unmarshal(raw[i:end], &key) != nil {
				return false
			}
			if i = jsonenc.SkipSpace(raw, end); i >= len(raw) || raw[i] != ':' {
				return false
			}
			i = jsonenc.SkipSpace(raw, i+1)
		}
		if i >= len(raw) {
			return false
		}
		end := jsonenc.ValueEnd(raw, i)
		v := raw[i:end]
		if !json.Valid(v) && !tooDeepForGo(v) {
			return false
		}
		each(key, v)
		switch i = jsonenc.SkipSpace(raw, end); {
		case i < len(raw) && raw[i] == ',':
			i = jsonenc.SkipSpace(raw, i+1)
		case i < len(raw) && raw[i] == closing:
			return jsonenc.SkipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}
