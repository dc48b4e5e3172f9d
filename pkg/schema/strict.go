package schema

import (
	"slices"
	"sort"
)

// strictDropped are the keywords a strict function schema leaves out:
// those OpenAI's strict mode refuses or may refuse (a default, bounds on
// numbers, lengths and sizes). The call still checks them all: a model
// that breaks one gets the validation message.
var strictDropped = []string{"$schema", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern", "format", "examples"}

// Strict turns a tool's parameters (a JSON Schema, decoded) into the form
// OpenAI's strict function calling takes: every object lists all its
// properties as required and allows no others, an optional property
// becomes nullable instead (a call takes a null for an optional
// parameter as not given, at any depth, as Mastra's validator does), and
// the keywords strict mode refuses are left out. An optional property
// that strict mode cannot describe (a free-form object, whose keys are
// not known) is left out too: a strict model then never sends it, and a
// call without it is valid. It returns a new schema; s is not changed.
func Strict(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if !slices.Contains(strictDropped, k) {
			out[k] = v
		}
	}
	if items, ok := out["items"].(map[string]any); ok {
		out["items"] = Strict(items)
	}
	if alts, ok := out["anyOf"].([]any); ok {
		next := make([]any, len(alts))
		for i, a := range alts {
			if m, ok := a.(map[string]any); ok {
				next[i] = Strict(m)
			} else {
				next[i] = a
			}
		}
		out["anyOf"] = next
	}
	props, ok := out["properties"].(map[string]any)
	if !ok {
		return out
	}
	required := map[string]bool{}
	if r, ok := out["required"].([]any); ok {
		for _, n := range r {
			if s, ok := n.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	next := make(map[string]any, len(props))
	for name, p := range props {
		m, ok := p.(map[string]any)
		if !ok {
			names = append(names, name)
			next[name] = p
			continue
		}
		m = Strict(m)
		if !required[name] {
			if !strictForm(m) {
				continue
			}
			m = nullable(m)
		}
		names = append(names, name)
		next[name] = m
	}
	sort.Strings(names)
	all := make([]any, len(names))
	for i, n := range names {
		all[i] = n
	}
	out["properties"], out["required"], out["additionalProperties"] = next, all, false
	return out
}

// strictForm reports whether the schema s (after Strict) is one OpenAI's
// strict mode takes: every object in it lists its properties and allows
// no others, and none has propertyNames (which strict mode does not
// support). A free-form object ({"additionalProperties": {}}) is not.
func strictForm(s map[string]any) bool {
	if _, ok := s["propertyNames"]; ok {
		return false
	}
	if isObject(s["type"]) && s["additionalProperties"] != false {
		return false
	}
	var subs []any
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			subs = append(subs, p)
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		subs = append(subs, alts...)
	}
	subs = append(subs, s["items"], s["additionalProperties"])
	for _, sub := range subs {
		if m, ok := sub.(map[string]any); ok && !strictForm(m) {
			return false
		}
	}
	return true
}

// isObject reports whether a schema's type is or includes "object".
func isObject(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// nullable is the schema s that also takes null.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(slices.Clone(t), "null")
		}
	default:
		if alts, ok := s["anyOf"].([]any); ok {
			s["anyOf"] = append(slices.Clone(alts), map[string]any{"type": "null"})
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
		s["enum"] = append(slices.Clone(enum), nil)
	}
	return s
}
