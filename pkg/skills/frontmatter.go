package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/wstools/ws/pkg/js"
	"go.yaml.in/yaml/v3"
)

// frontMatter splits a SKILL.md as gray-matter 4.0.3 does (with Mastra's
// options) into its data and its body. The data is nil when the file has
// no front matter; err is set when the front matter cannot be parsed.
func frontMatter(s string) (data any, body string, err error) {
	s = strings.TrimPrefix(s, "\uFEFF")
	const open = "---"
	if !strings.HasPrefix(s, open) {
		return nil, s, nil
	}
	if len(s) > 3 && s[3] == '-' {
		return nil, s, nil
	}
	str := s[3:]
	lang := "yaml"
	if nl := lineBreak().FindStringIndex(str); nl != nil {
		raw := str[:nl[0]]
		if name := strings.TrimSpace(raw); name != "" {
			lang = name
			str = str[len(raw):]
		}
	} else if len(str) > 0 {
		// No line break: JavaScript's slice(0, -1) takes all but the last character.
		raw := str[:len(str)-1]
		if name := strings.TrimSpace(raw); name != "" {
			lang = name
			str = str[len(raw):]
		}
	}
	closeIdx := strings.Index(str, "\n---")
	if closeIdx < 0 {
		closeIdx = len(str)
	}
	matter := str[:closeIdx]
	if closeIdx == len(str) {
		body = ""
	} else {
		body = str[closeIdx+4:]
		body = strings.TrimPrefix(body, "\r")
		body = strings.TrimPrefix(body, "\n")
	}
	if strings.TrimSpace(commentLine().ReplaceAllString(matter, "")) == "" {
		return map[string]any{}, body, nil
	}
	switch strings.ToLower(lang) {
	case "yaml", "yml":
		data, err = parseYAML(matter)
	case "json":
		err = json.Unmarshal([]byte(matter), &data)
	case "js", "javascript":
		err = errors.New("JavaScript frontmatter is not supported")
	default:
		err = fmt.Errorf("gray-matter engine %q is not registered", lang)
	}
	return data, body, err
}

var (
	lineBreak   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\r?\n`) })
	commentLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*#[^\n]+`) })
)

func parseYAML(src string) (any, error) {
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		return nil, err
	}
	var v any
	if err := node.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize turns YAML's maps into map[string]any, as JavaScript objects.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

// jsType is JavaScript's typeof of a decoded value.
func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "object" // typeof null
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int64, uint64, float64, json.Number:
		return "number"
	}
	return "object"
}

const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
	maxLines          = 500
	maxTokens         = 5000
)

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]+$`) })

// requiredString is a frontmatter field that must be a non-empty string,
// with Mastra's checks on it in Mastra's order; each message follows
// "<key>: " in the error.
type requiredString struct {
	key, empty string
	checks     []stringCheck
}

// stringCheck is one check on a string: the message when fails says so.
type stringCheck struct {
	fails func(string) bool
	msg   string
}

// requiredStrings is built on first use, not at every start of ws.
var requiredStrings = sync.OnceValue(func() []requiredString {
	return []requiredString{{
		key:   "name",
		empty: "Skill name cannot be empty",
		checks: []stringCheck{
			{func(s string) bool { return js.UTF16Len(s) > maxNameLen }, fmt.Sprintf("Skill name must be %d characters or less", maxNameLen)},
			{func(s string) bool { return !namePattern().MatchString(s) }, "Skill name must contain only lowercase letters, numbers, and hyphens"},
			{func(s string) bool { return strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") }, "Skill name must not start or end with a hyphen"},
			{func(s string) bool { return strings.Contains(s, "--") }, "Skill name must not contain consecutive hyphens"},
		},
	}, {
		key:   "description",
		empty: "Skill description cannot be empty",
		checks: []stringCheck{
			{func(s string) bool { return js.UTF16Len(s) > maxDescriptionLen }, fmt.Sprintf("Skill description must be %d characters or less", maxDescriptionLen)},
			{func(s string) bool { return js.TrimSpace(s) == "" }, "Skill description cannot be only whitespace"},
		},
	}}
})

// validate applies Mastra's validateSkillMetadata: errors skip the skill,
// warnings do not.
func validate(data map[string]any, dirName, instructions string) (errs, warns []string) {
	for _, f := range requiredStrings() {
		v, present := data[f.key]
		s, ok := v.(string)
		switch {
		case !ok:
			errs = append(errs, f.key+": Expected string, received "+typeOf(v, present))
		case s == "":
			errs = append(errs, f.key+": "+f.empty)
		default:
			for _, c := range f.checks {
				if c.fails(s) {
					errs = append(errs, f.key+": "+c.msg)
				}
			}
		}
	}
	if lic, ok := data["license"]; ok && lic != nil {
		if _, isStr := lic.(string); !isStr {
			errs = append(errs, "license: Expected string, received "+jsType(lic))
		}
	}
	if ui, ok := data["user-invocable"]; ok {
		if _, isBool := ui.(bool); !isBool {
			errs = append(errs, "user-invocable: Expected boolean, received "+jsType(ui))
		}
	}
	if md, ok := data["metadata"]; ok && md != nil {
		switch md.(type) {
		case map[string]any:
		case []any:
			errs = append(errs, "metadata: Expected object, received array")
		default:
			errs = append(errs, "metadata: Expected object, received "+jsType(md))
		}
	}
	if s, ok := data["name"].(string); ok && dirName != "" && s != dirName {
		errs = append(errs, fmt.Sprintf("Skill name \"%s\" must match directory name \"%s\"", s, dirName))
	}
	if instructions != "" {
		lines := strings.Count(instructions, "\n") + 1
		words := len(js.Fields(instructions))
		tokens := (words*13 + 9) / 10 // Math.ceil(words * 1.3)
		if lines > maxLines {
			warns = append(warns, fmt.Sprintf("Instructions have %d lines (recommended: <%d). Consider moving content to references/.", lines, maxLines))
		}
		if tokens > maxTokens {
			warns = append(warns, fmt.Sprintf("Instructions have ~%d estimated tokens (recommended: <%d). Consider moving content to references/.", tokens, maxTokens))
		}
	}
	return errs, warns
}

func typeOf(v any, present bool) string {
	if !present {
		return "undefined"
	}
	return jsType(v)
}
