package upload

import (
	"strings"
	"testing"
)

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func TestFileParts(t *testing.T) {
	for _, tc := range []struct {
		name, part string
		ok         bool
		file       File
		textType   string
	}{
		{"ai sdk file", `{"type":"file","data":"aGk=","mediaType":"text/plain","filename":"a.txt"}`, true, File{"a.txt", "text/plain"}, "text"},
		{"ai sdk v4 mimeType", `{"type":"file","data":"aGk=","mimeType":"text/csv"}`, true, File{"", "text/csv"}, "text"},
		{"ai sdk ui url", `{"type":"file","url":"data:application/pdf;base64,JVBERi0x","mediaType":"application/pdf","filename":"r.pdf"}`, true, File{"r.pdf", "application/pdf"}, "text"},
		{"data url type wins", `{"type":"file","data":"data:image/png;base64,aGk=","mediaType":"application/octet-stream"}`, true, File{"", "image/png"}, "text"},
		{"no type", `{"type":"file","data":"aGk="}`, true, File{"", DefaultMIMEType}, "text"},
		{"ai sdk url", `{"type":"file","data":"https://x/a.pdf","mediaType":"application/pdf"}`, false, File{}, ""},
		{"provider id", `{"type":"file","data":"file-abc","mediaType":"application/pdf"}`, false, File{}, ""},
		{"bytes object", `{"type":"file","data":{"0":1},"mediaType":"application/pdf"}`, false, File{}, ""},
		{"ai sdk image", `{"type":"image","image":"` + png1x1 + `"}`, true, File{"", "image/png"}, "text"},
		{"ai sdk image unknown", `{"type":"image","image":"aGk="}`, true, File{"", "image/*"}, "text"},
		{"ai sdk image typed", `{"type":"image","image":"aGk=","mediaType":"image/webp"}`, true, File{"", "image/webp"}, "text"},
		{"openai image_url", `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,aGk=","detail":"low"}}`, true, File{"", "image/jpeg"}, "text"},
		{"openai image_url link", `{"type":"image_url","image_url":{"url":"https://x/y.png"}}`, false, File{}, ""},
		{"openai file", `{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0x"}}`, true, File{"a.pdf", "application/pdf"}, "text"},
		{"openai file id", `{"type":"file","file":{"file_id":"file-abc"}}`, false, File{}, ""},
		{"openai audio", `{"type":"input_audio","input_audio":{"data":"aGk=","format":"mp3"}}`, true, File{"", "audio/mpeg"}, "text"},
		{"openai audio wav", `{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}}`, true, File{"", "audio/wav"}, "text"},
		{"responses image", `{"type":"input_image","image_url":"data:image/png;base64,aGk="}`, true, File{"", "image/png"}, "input_text"},
		{"responses image id", `{"type":"input_image","file_id":"file-1"}`, false, File{}, ""},
		{"responses file", `{"type":"input_file","filename":"d.docx","file_data":"data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,UEs="}`, true,
			File{"d.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}, "input_text"},
		{"responses file url", `{"type":"input_file","file_url":"https://x/d.pdf"}`, false, File{}, ""},
		{"anthropic image", `{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGOD"}}`, true, File{"", "image/gif"}, "text"},
		{"anthropic document", `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"},"title":"Q3.pdf"}`, true, File{"Q3.pdf", "application/pdf"}, "text"},
		{"anthropic url", `{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}`, false, File{}, ""},
		{"anthropic file id", `{"type":"image","source":{"type":"file","file_id":"file_011"}}`, false, File{}, ""},
		{"anthropic text document", `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}`, false, File{}, ""},
		{"anthropic base64 starting //", `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"//8A"}}`, true, File{"", "image/png"}, "text"},
		{"mcp image", `{"type":"image","data":"aGk=","mimeType":"image/png"}`, true, File{"", "image/png"}, "text"},
		{"mcp audio", `{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`, true, File{"", "audio/wav"}, "text"},
		{"mcp resource", `{"type":"resource","resource":{"uri":"file:///tmp/notes.md?x=1","mimeType":"text/markdown","blob":"aGk="}}`, true, File{"notes.md", "text/markdown"}, "text"},
		{"mcp text resource", `{"type":"resource","resource":{"uri":"file:///a","text":"hi"}}`, false, File{}, ""},
		{"text", `{"type":"text","text":"aGk="}`, false, File{}, ""},
		{"tool result", `{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}}]}`, false, File{}, ""},
		{"not an object", `"hello"`, false, File{}, ""},
		{"type not a string", `{"type":3,"data":"aGk="}`, false, File{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := filePart([]byte(tc.part))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok && (p.File != tc.file || p.textType != tc.textType) {
				t.Errorf("got %+v (%s), want %+v (%s)", p.File, p.textType, tc.file, tc.textType)
			}
		})
	}
}

func TestMessagesRewrite(t *testing.T) {
	doc := `[
  {"role": "system", "content": "You help.  Keep <b>tags</b> & \u00e9scapes"},
  {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "file", "data": "aGk=", "mediaType": "text/plain", "filename": "a.txt"}], "id": "m1"},
  {"role": "assistant", "content": [{"type": "file", "data": "aGk=", "mediaType": "text/plain"}]},
  {"role": "user", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}},
  {"content": [{"type": "input_file", "file_data": "aGk="}], "role": "user"}
]`
	m, err := ParseMessages([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) != 3 {
		t.Fatalf("%d parts: %+v", len(m.Parts), m.Parts)
	}
	want := []struct {
		msg, idx int
		current  bool
		name     string
	}{{1, 1, false, "a.txt"}, {3, -1, false, "a.txt"}, {4, 0, true, "a.txt"}}
	for i, w := range want {
		p := m.Parts[i]
		if p.Message != w.msg || p.Index != w.idx || p.Current != w.current || p.Name != w.name {
			t.Errorf("part %d = %+v, want %+v", i, p, w)
		}
	}
	out, err := m.Rewrite(map[int]string{0: "N0 <&>", 1: "N1", 2: "N2"})
	if err != nil {
		t.Fatal(err)
	}
	exp := `[{"role":"system","content":"You help.  Keep <b>tags</b> & \u00e9scapes"},` +
		`{"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"N0 <&>"}],"id":"m1"},` +
		`{"role":"assistant","content":[{"type":"file","data":"aGk=","mediaType":"text/plain"}]},` +
		`{"role":"user","content":{"type":"text","text":"N1"}},` +
		`{"content":[{"type":"input_text","text":"N2"}],"role":"user"}]`
	if string(out) != exp {
		t.Errorf("rewrite:\n got %s\nwant %s", out, exp)
	}
	same, _ := m.Rewrite(nil)
	if !strings.HasPrefix(string(same), `[{"role":"system"`) || strings.Contains(string(same), "N0") {
		t.Errorf("no notes: %s", same)
	}
}

func TestMessagesWrapped(t *testing.T) {
	doc := `{"model": "m", "messages": [{"role": "user", "content": [{"type": "file", "data": "aGk="}]}], "stream": false}`
	m, err := ParseMessages([]byte(doc))
	if err != nil || len(m.Parts) != 1 || !m.Parts[0].Current {
		t.Fatalf("%+v %v", m, err)
	}
	out, _ := m.Rewrite(map[int]string{0: "N"})
	if string(out) != `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"N"}]}],"stream":false}` {
		t.Errorf("got %s", out)
	}
}

// A message as Mastra stores it has its parts in content.parts; its files
// were left in the list, untouched. Its mirrors follow: an attachment with
// the bytes of a replaced file is dropped, and the text mirror is the text
// of the parts.
func TestMessagesStored(t *testing.T) {
	doc := `[{"id": "m1", "role": "user", "content": {"format": 2, "parts": [{"type": "text", "text": "see <b>"}, {"type": "file", "data": "aGk=", "mimeType": "text/plain", "filename": "a.txt"}], "content": "see <b>",
   "experimental_attachments": [{"name": "a.txt", "url": "aGk=", "contentType": "text/plain"}, {"name": "c.csv", "url": "https://x/c.csv"}]}},
 {"role": "user", "content": {"format": 2, "parts": "not parts"}}]`
	m, err := ParseMessages([]byte(doc))
	if err != nil || len(m.Parts) != 1 || m.Parts[0].Message != 0 || m.Parts[0].Index != 1 || m.Parts[0].Current || m.Parts[0].Name != "a.txt" {
		t.Fatalf("%+v %v", m, err)
	}
	out, err := m.Rewrite(map[int]string{0: "N & <n>"})
	want := `[{"id":"m1","role":"user","content":{"format":2,"parts":[{"type":"text","text":"see <b>"},{"type":"text","text":"N & <n>"}],"content":"see <b>\nN & <n>",` +
		`"experimental_attachments":[{"name":"c.csv","url":"https://x/c.csv"}]}},` +
		`{"role":"user","content":{"format":2,"parts":"not parts"}}]`
	if err != nil || string(out) != want {
		t.Errorf("got %s %v\nwant %s", out, err, want)
	}
}

// A file that is only an attachment of a stored message (AI SDK v4) is
// one to upload: its note comes first among the parts, and the attachment
// goes. An attachment that mirrors a part is that part's file, and a link
// stays.
func TestMessagesStoredAttachments(t *testing.T) {
	doc := `[{"role": "user", "content": {"format": 2, "parts": [{"type": "text", "text": "see"}, {"type": "file", "data": "aGk=", "mimeType": "text/plain"}], "content": "see",
  "experimental_attachments": [{"name": "a.txt", "contentType": "text/plain", "url": "aGk="}, {"name": "b.csv", "contentType": "text/csv", "url": "data:text/csv;base64,eCx5"},
   {"name": "l.pdf", "url": "https://x/l.pdf"}, {"name": "c.md", "url": "data:text/markdown;base64,Iw=="}]}}]`
	m, err := ParseMessages([]byte(doc))
	if err != nil || len(m.Parts) != 3 {
		t.Fatalf("%+v %v", m, err)
	}
	want := []struct {
		idx, att   int
		name, mime string
	}{{1, -1, "a.txt", "text/plain"}, {-1, 1, "b.csv", "text/csv"}, {-1, 3, "c.md", "text/markdown"}}
	for i, w := range want {
		if p := m.Parts[i]; p.Index != w.idx || p.Attachment != w.att || p.Name != w.name || p.MIMEType != w.mime || !p.Current {
			t.Errorf("part %d = %+v, want %+v", i, p, w)
		}
	}
	out, err := m.Rewrite(map[int]string{0: "A", 1: "B", 2: "C"})
	exp := `[{"role":"user","content":{"format":2,"parts":[{"type":"text","text":"B"},{"type":"text","text":"C"},{"type":"text","text":"see"},{"type":"text","text":"A"}],` +
		`"content":"B\nC\nsee\nA","experimental_attachments":[{"name":"l.pdf","url":"https://x/l.pdf"}]}}]`
	if err != nil || string(out) != exp {
		t.Errorf("got %s %v\nwant %s", out, err, exp)
	}
}

// A Responses API request body holds its messages in "input"; it was
// refused as not a message list.
func TestMessagesResponsesInput(t *testing.T) {
	doc := `{"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_file", "filename": "a.md", "file_data": "data:text/markdown;base64,aGk="}]}], "store": false}`
	m, err := ParseMessages([]byte(doc))
	if err != nil || len(m.Parts) != 1 || !m.Parts[0].Current || m.Parts[0].Name != "a.md" {
		t.Fatalf("%+v %v", m, err)
	}
	out, _ := m.Rewrite(map[int]string{0: "N"})
	if string(out) != `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"N"}]}],"store":false}` {
		t.Errorf("got %s", out)
	}
}

func TestMessagesErrors(t *testing.T) {
	for _, doc := range []string{`{`, `3`, `"x"`, `{"messages": 3}`, `{"model": "m"}`, `[3]`, `[{"role": "user", "content": [}]`,
		`{"input": "just text"}`, `{"messages": 3, "input": []}`} {
		if _, err := ParseMessages([]byte(doc)); err == nil {
			t.Errorf("ParseMessages(%s) accepted", doc)
		}
	}
	m, err := ParseMessages([]byte(`[]`))
	if err != nil || len(m.Parts) != 0 {
		t.Errorf("empty list: %v", err)
	}
	if out, _ := m.Rewrite(nil); string(out) != `[]` {
		t.Errorf("empty rewrite %s", out)
	}
}
