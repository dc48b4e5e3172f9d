package upload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// Part is a file sent inline in a user message of a message list.
type Part struct {
	File           // the name and MIME type the file was sent with
	Data    Inline // its bytes, encoded
	Message int    // index of the message in the list
	Index   int    // index of the part in the message's content; -1 when the content is this one part
	// Attachment is the index of the file in the experimental_attachments of
	// a message as Mastra stores it, for a file that has no part; else -1.
	Attachment int
	// Current is set for the files of the last user message: the current
	// turn. A file of the thread history never stops the turn.
	Current  bool
	textType string // the type of a text part in this part's dialect
	dataText string // the data string as sent
}

// Messages is a message list as a function-calling shim holds it: a JSON
// array of messages, or an object (a request body) with a "messages"
// array (or, as OpenAI's Responses API has it, an "input" array). Each
// message has a "role" and a "content" that is a string, an array of
// parts, one part object, or (as Mastra stores messages) an object with a
// "parts" array.
//
// The file parts recognised, all in user messages, are those of the AI SDK
// and Mastra (`file` with `data` or `url`, `mediaType` or `mimeType` and
// `filename`; `image` with `image`), of OpenAI's Chat Completions
// (`image_url`, `file` with `file_data`, `input_audio`) and Responses APIs
// (`input_image`, `input_file`), of Anthropic's Messages API (`image` and
// `document` with a `base64` source; a document's `title` is its name) and
// of MCP (`image`, `audio` with `data`; `resource` with a `blob`). Only
// inline data (base64 or a data URL) is a file to upload: a URL, a provider
// file id, a text document and everything else are left as they are.
type Messages struct {
	doc      []byte
	wrapped  string // the key of the list in a request body; "" for a bare list
	messages []json.RawMessage
	contents map[int][]json.RawMessage // parts of messages whose content is an array (or holds one)
	stored   map[int]bool              // messages whose parts are the "parts" of a content object
	Parts    []Part
}

// ErrNotMessages says what a message list must look like.
var ErrNotMessages = errors.New(`expected a JSON array of messages, or an object with a "messages" (or Responses API "input") array`)

// ParseMessages reads a message list and finds its inline files.
func ParseMessages(doc []byte) (*Messages, error) {
	m := &Messages{doc: doc, contents: map[int][]json.RawMessage{}, stored: map[int]bool{}}
	trimmed := bytes.TrimSpace(doc)
	if !json.Valid(trimmed) { // checked once: the helpers of rawjson.go trust it
		var v any
		return nil, fmt.Errorf("invalid JSON: %v", json.Unmarshal(trimmed, &v))
	}
	if trimmed[0] == '{' {
		var body struct {
			Messages json.RawMessage `json:"messages"`
			Input    json.RawMessage `json:"input"` // OpenAI's Responses API
		}
		_ = unmarshalRaw(trimmed, &body)
		switch {
		case len(body.Messages) > 0 && body.Messages[0] == '[':
			m.wrapped, trimmed = "messages", body.Messages
		case len(body.Messages) == 0 && len(body.Input) > 0 && body.Input[0] == '[':
			m.wrapped, trimmed = "input", body.Input
		default:
			return nil, ErrNotMessages
		}
	}
	if trimmed[0] != '[' { // null too: it is no list, as {} is none
		return nil, ErrNotMessages
	}
	m.messages = elements(trimmed)
	last := -1
	type message struct {
		Role    json.RawMessage `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	parsed := make([]message, len(m.messages))
	for i, raw := range m.messages {
		if err := unmarshalRaw(raw, &parsed[i]); err != nil {
			return nil, fmt.Errorf("message %d: expected an object with a role and a content", i)
		}
		if role, _ := jsonString(parsed[i].Role); role == "user" {
			last = i
		}
	}
	names := map[string]string{}
	var all []Part
	for i, msg := range parsed {
		role, _ := jsonString(msg.Role)
		c := bytes.TrimSpace(msg.Content)
		var parts, atts []json.RawMessage
		switch {
		case len(c) > 0 && c[0] == '[':
			parts = elements(c)
			m.contents[i] = parts
		case len(c) > 0 && c[0] == '{':
			if inner, ok := storedParts(c); ok {
				// A message as Mastra stores it: {"format": 2, "parts": [...]}.
				parts = elements(inner)
				m.contents[i], m.stored[i] = parts, true
				atts = storedAttachments(c)
				break
			}
			parts = []json.RawMessage{c}
		}
		inParts := map[string]bool{}
		for j, raw := range parts {
			p, ok := filePart(raw)
			if !ok {
				continue
			}
			inParts[p.dataText] = true
			if key := p.Data.Key(); p.Name != "" && key != "" {
				if _, seen := names[key]; !seen {
					names[key] = p.Name
				}
			}
			if role != "user" {
				continue
			}
			p.Message, p.Index, p.Attachment, p.Current = i, j, -1, i == last
			if m.contents[i] == nil {
				p.Index = -1
			}
			all = append(all, p)
		}
		// Files that are only attachments (AI SDK v4 messages as Mastra
		// stores them): the ones whose bytes no part holds.
		for k, raw := range atts {
			p, ok := attachmentPart(raw)
			if !ok {
				continue
			}
			if key := p.Data.Key(); p.Name != "" && key != "" { // a part it mirrors takes its name too
				if _, seen := names[key]; !seen {
					names[key] = p.Name
				}
			}
			if inParts[p.dataText] || role != "user" {
				continue
			}
			p.Message, p.Index, p.Attachment, p.Current = i, -1, k, i == last
			all = append(all, p)
		}
	}
	// A file sent without a name takes the name of another part carrying
	// the same content, so an attachment keeps its name.
	for k := range all {
		if all[k].Name == "" {
			if key := all[k].Data.Key(); key != "" {
				all[k].Name = names[key]
			}
		}
	}
	m.Parts = all
	return m, nil
}

// Rewrite returns the list with the parts that have a note (by their index
// in Parts) replaced by a text part holding the note; everything else is
// left as it was. The result is compact JSON.
func (m *Messages) Rewrite(notes map[int]string) ([]byte, error) {
	byMessage := map[int]map[int]string{}
	replaced := map[int]map[string]bool{} // the data strings replaced, by message
	for k, note := range notes {
		p := m.Parts[k]
		if byMessage[p.Message] == nil {
			byMessage[p.Message], replaced[p.Message] = map[int]string{}, map[string]bool{}
		}
		at := p.Index
		if p.Attachment >= 0 {
			at = attachmentKey(p.Attachment)
		}
		byMessage[p.Message][at] = textPart(p.textType, note)
		replaced[p.Message][p.dataText] = true
	}
	var list bytes.Buffer
	list.WriteByte('[')
	for i, raw := range m.messages {
		if i > 0 {
			list.WriteByte(',')
		}
		repl, ok := byMessage[i]
		if !ok {
			list.Write(raw)
			continue
		}
		var content []byte
		if parts := m.contents[i]; parts != nil {
			var b bytes.Buffer
			b.WriteByte('[')
			// Notes of files that were only attachments come first, in
			// their order: a prompt puts attachments before the parts.
			var keys []int
			for k := range repl {
				if k <= attachmentKey(0) {
					keys = append(keys, k)
				}
			}
			sort.Sort(sort.Reverse(sort.IntSlice(keys)))
			for _, k := range keys {
				if b.Len() > 1 {
					b.WriteByte(',')
				}
				b.WriteString(repl[k])
			}
			for j, part := range parts {
				if b.Len() > 1 {
					b.WriteByte(',')
				}
				if text, ok := repl[j]; ok {
					b.WriteString(text)
				} else {
					b.Write(part)
				}
			}
			b.WriteByte(']')
			content = b.Bytes()
			if m.stored[i] {
				var err error
				if content, err = storedContent(bytes.TrimSpace(m.contentOf(raw)), content, replaced[i]); err != nil {
					return nil, err
				}
			}
		} else {
			content = []byte(repl[-1])
		}
		msg, err := replaceKey(raw, "content", content)
		if err != nil {
			return nil, err
		}
		list.Write(msg)
	}
	list.WriteByte(']')
	out := list.Bytes()
	if m.wrapped != "" {
		var err error
		if out, err = replaceKey(bytes.TrimSpace(m.doc), m.wrapped, out); err != nil {
			return nil, err
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

func textPart(typ, text string) string {
	b, _ := jsonenc.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{typ, text})
	return string(b)
}

// replaceKey replaces the value of key (its last occurrence, the one a
// JSON decoder keeps) in the object obj, which is valid JSON.
func replaceKey(obj []byte, key string, val []byte) ([]byte, error) {
	start, end := -1, -1
	fieldSpans(obj, func(k string, s, e int) {
		if k == key {
			start, end = s, e
		}
	})
	if start < 0 {
		return nil, fmt.Errorf("no %q key", key)
	}
	out := make([]byte, 0, len(obj)-(end-start)+len(val))
	out = append(out, obj[:start]...)
	out = append(out, val...)
	return append(out, obj[end:]...), nil
}

// storedContent is a stored message's content object with its new parts.
// Its mirrors follow, as Mastra keeps them: attachments holding the bytes of
// a replaced file are dropped (a prompt built from the message would turn
// them back into files), and the text mirror "content" is the text of the
// parts, joined by newlines.
func storedContent(content, parts []byte, replaced map[string]bool) ([]byte, error) {
	out, err := replaceKey(content, "parts", parts)
	if err != nil {
		return nil, err
	}
	var c struct {
		Attachments json.RawMessage `json:"experimental_attachments"`
		Text        json.RawMessage `json:"content"`
	}
	_ = unmarshalRaw(out, &c)
	if len(c.Attachments) > 0 && c.Attachments[0] == '[' {
		var kept [][]byte
		for _, a := range elements(c.Attachments) {
			var att struct {
				URL json.RawMessage `json:"url"`
			}
			_ = unmarshalRaw(a, &att)
			if url, _ := jsonString(att.URL); !replaced[url] {
				kept = append(kept, a)
			}
		}
		list := "[" + string(bytes.Join(kept, []byte(","))) + "]" // as they were, no escaping added
		if out, err = replaceKey(out, "experimental_attachments", []byte(list)); err != nil {
			return nil, err
		}
	}
	if _, ok := jsonString(c.Text); ok {
		var texts []string
		for _, p := range elements(parts) {
			var f struct {
				Type json.RawMessage `json:"type"`
				Text json.RawMessage `json:"text"`
			}
			_ = unmarshalRaw(p, &f)
			if t, _ := jsonString(f.Type); t == "text" {
				text, _ := jsonString(f.Text)
				texts = append(texts, text)
			}
		}
		if out, err = replaceKey(out, "content", []byte(jsonenc.String(strings.Join(texts, "\n")))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// attachmentKey is where Rewrite keeps the note of attachment k of a
// message, below the parts' indexes (and -1, the content as one part).
func attachmentKey(k int) int { return -2 - k }

// storedAttachments are the experimental_attachments of a content object
// as Mastra stores messages.
func storedAttachments(content []byte) []json.RawMessage {
	var c struct {
		Attachments json.RawMessage `json:"experimental_attachments"`
	}
	if unmarshalRaw(content, &c) != nil || len(c.Attachments) == 0 || c.Attachments[0] != '[' {
		return nil
	}
	return elements(c.Attachments)
}

// attachmentPart recognises an attachment ({name, contentType, url}) whose
// url is inline data.
func attachmentPart(raw json.RawMessage) (Part, bool) {
	var a struct {
		Name        json.RawMessage `json:"name"`
		ContentType json.RawMessage `json:"contentType"`
		URL         json.RawMessage `json:"url"`
	}
	if unmarshalRaw(raw, &a) != nil {
		return Part{}, false
	}
	data, ok := jsonString(a.URL)
	if !ok || Classify(data) != KindInline {
		return Part{}, false
	}
	p := Part{textType: "text", Data: ParseInline(data), dataText: data}
	p.Name, _ = jsonString(a.Name)
	switch declared, _ := jsonString(a.ContentType); {
	case p.Data.MIMEType() != "":
		p.MIMEType = p.Data.MIMEType()
	case declared != "":
		p.MIMEType = declared
	default:
		p.MIMEType = DefaultMIMEType
	}
	return p, true
}

// storedParts is the "parts" array of a content object as Mastra stores
// messages ({"format": 2, "parts": [...]}), which is no part itself.
func storedParts(content []byte) (json.RawMessage, bool) {
	var c struct {
		Type  json.RawMessage `json:"type"`
		Parts json.RawMessage `json:"parts"`
	}
	if unmarshalRaw(content, &c) != nil || c.Type != nil || len(c.Parts) == 0 || c.Parts[0] != '[' {
		return nil, false
	}
	return c.Parts, true
}

// contentOf is a message's content value.
func (m *Messages) contentOf(raw json.RawMessage) json.RawMessage {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	_ = unmarshalRaw(raw, &msg)
	return msg.Content
}

// fields of a part in any of the dialects; each is decoded on its own so a
// shape ws does not know never fails the list.
type partFields struct {
	Type       json.RawMessage `json:"type"`
	Data       json.RawMessage `json:"data"`
	URL        json.RawMessage `json:"url"`
	Image      json.RawMessage `json:"image"`
	MediaType  json.RawMessage `json:"mediaType"`
	MimeType   json.RawMessage `json:"mimeType"`
	Filename   json.RawMessage `json:"filename"`
	Title      json.RawMessage `json:"title"`
	File       json.RawMessage `json:"file"`
	FileData   json.RawMessage `json:"file_data"`
	ImageURL   json.RawMessage `json:"image_url"`
	InputAudio json.RawMessage `json:"input_audio"`
	Source     json.RawMessage `json:"source"`
	Resource   json.RawMessage `json:"resource"`
}

// filePart recognises an inline file part.
func filePart(raw json.RawMessage) (Part, bool) {
	var f partFields
	if unmarshalRaw(raw, &f) != nil {
		return Part{}, false
	}
	typ, _ := jsonString(f.Type)
	p := Part{textType: "text"}
	var data string
	var ok, raw64 bool
	var declared string
	switch typ {
	case "file":
		if len(f.File) > 0 { // OpenAI Chat Completions
			var file struct {
				FileData json.RawMessage `json:"file_data"`
				Filename json.RawMessage `json:"filename"`
			}
			_ = unmarshalRaw(f.File, &file)
			data, ok = jsonString(file.FileData)
			p.Name, _ = jsonString(file.Filename)
			break
		}
		if data, ok = jsonString(f.Data); !ok {
			data, ok = jsonString(f.URL)
		}
		declared = firstString(f.MimeType, f.MediaType)
		p.Name, _ = jsonString(f.Filename)
	case "image", "document":
		if len(f.Source) > 0 { // Anthropic
			var src struct {
				Type      json.RawMessage `json:"type"`
				MediaType json.RawMessage `json:"media_type"`
				Data      json.RawMessage `json:"data"`
			}
			_ = unmarshalRaw(f.Source, &src)
			if t, _ := jsonString(src.Type); t != "base64" {
				return Part{}, false
			}
			data, ok = jsonString(src.Data)
			raw64 = true
			declared, _ = jsonString(src.MediaType)
			p.Name, _ = jsonString(f.Title)
			break
		}
		if typ != "image" {
			return Part{}, false
		}
		if data, ok = jsonString(f.Image); ok { // AI SDK
			declared = firstString(f.MimeType, f.MediaType)
			break
		}
		data, ok = jsonString(f.Data) // MCP
		raw64 = true
		declared, _ = jsonString(f.MimeType)
	case "audio": // MCP
		data, ok = jsonString(f.Data)
		raw64 = true
		declared, _ = jsonString(f.MimeType)
	case "resource": // MCP embedded resource
		var res struct {
			URI      json.RawMessage `json:"uri"`
			MimeType json.RawMessage `json:"mimeType"`
			Blob     json.RawMessage `json:"blob"`
		}
		_ = unmarshalRaw(f.Resource, &res)
		data, ok = jsonString(res.Blob)
		raw64 = true
		declared, _ = jsonString(res.MimeType)
		if uri, _ := jsonString(res.URI); uri != "" {
			uri, _, _ = strings.Cut(uri, "?")
			p.Name = uri[strings.LastIndexByte(uri, '/')+1:]
		}
	case "image_url", "input_image": // OpenAI
		if data, ok = jsonString(f.ImageURL); !ok {
			var u struct {
				URL json.RawMessage `json:"url"`
			}
			_ = unmarshalRaw(f.ImageURL, &u)
			data, ok = jsonString(u.URL)
		}
		typ = "image"
	case "input_file": // OpenAI Responses
		data, ok = jsonString(f.FileData)
		p.Name, _ = jsonString(f.Filename)
	case "input_audio": // OpenAI Chat Completions
		var a struct {
			Data   json.RawMessage `json:"data"`
			Format json.RawMessage `json:"format"`
		}
		_ = unmarshalRaw(f.InputAudio, &a)
		data, ok = jsonString(a.Data)
		raw64 = true
		switch format, _ := jsonString(a.Format); format {
		case "mp3":
			declared = "audio/mpeg"
		case "":
		default:
			declared = "audio/" + format
		}
	default:
		return Part{}, false
	}
	if !ok || !raw64 && Classify(data) != KindInline {
		return Part{}, false
	}
	if t, _ := jsonString(f.Type); t == "input_image" || t == "input_file" {
		p.textType = "input_text" // OpenAI Responses
	}
	if raw64 && strings.HasPrefix(data, "data:") {
		raw64 = false // a data URL where base64 was expected is still read as one
	}
	p.Data, p.dataText = ParseInline(data), data
	if raw64 {
		p.Data = Inline{content: data}
	}
	switch {
	case p.Data.MIMEType() != "":
		p.MIMEType = p.Data.MIMEType()
	case declared != "":
		p.MIMEType = declared
	case typ == "image":
		if p.MIMEType = sniffImage(p.Data); p.MIMEType == "" {
			p.MIMEType = "image/*"
		}
	default:
		p.MIMEType = DefaultMIMEType
	}
	return p, true
}

func firstString(raws ...json.RawMessage) string {
	for _, r := range raws {
		if s, ok := jsonString(r); ok {
			return s
		}
	}
	return ""
}
