package upload

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// TestRawJSON checks the trusting helpers against encoding/json on valid
// documents: the elements of arrays, the fields of objects, strings.
func TestRawJSON(t *testing.T) {
	docs := []string{
		`[]`, `[ ]`, `[1, "a", null, true, {"x": [1, {"y": "]}"}]}, [[]], -1.5e3]`,
		` [ "a\"b" , "c\\" , "\\\"" ,"\u00e9\/" ] `,
		"[\"caf\xe9\", \"ok\"]",
		`[{"type": "file", "TYPE": "image", "data": "aGk=", "Data": null}]`,
		`[{"role":"user","content":[{"type":"text","text":"a,b}]"}],"x":{"role":"no"}}]`,
		`[{"ro\u006ce": "user", "content": "x"}, {}, null, {"content": {"format": 2, "parts": []}}]`,
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		docs = append(docs, string(randJSONArray(rng, 0)))
	}
	type fields struct {
		Type    json.RawMessage `json:"type"`
		Data    json.RawMessage `json:"data"`
		Role    json.RawMessage `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	for _, doc := range docs {
		if !json.Valid([]byte(doc)) {
			t.Fatalf("test document not valid: %s", doc)
		}
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		got := elements(bytes.TrimSpace([]byte(doc)))
		if len(got) != len(want) {
			t.Fatalf("elements(%s): %d, want %d", doc, len(got), len(want))
		}
		for k := range want {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("elements(%s)[%d] = %s, want %s", doc, k, got[k], want[k])
			}
			var wf, gf fields
			werr := json.Unmarshal(want[k], &wf)
			gerr := unmarshalRaw(got[k], &gf)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("unmarshalRaw(%s) error %v, want %v", got[k], gerr, werr)
			}
			if werr == nil && (!bytes.Equal(gf.Type, wf.Type) || !bytes.Equal(gf.Data, wf.Data) || !bytes.Equal(gf.Role, wf.Role) || !bytes.Equal(gf.Content, wf.Content)) {
				t.Fatalf("unmarshalRaw(%s) = %+v, want %+v", got[k], gf, wf)
			}
			var ws string
			wok := json.Unmarshal(want[k], &ws) == nil && want[k][0] == '"'
			gs, gok := jsonString(got[k])
			if gok != wok || gs != ws {
				t.Fatalf("jsonString(%s) = %q %v, want %q %v", got[k], gs, gok, ws, wok)
			}
		}
	}
}

// randJSONArray makes a valid JSON array with nested values, strings with
// escapes and odd spacing.
func randJSONArray(rng *rand.Rand, depth int) []byte {
	var b bytes.Buffer
	sp := func() { b.WriteString([]string{"", " ", "\n\t", "  "}[rng.Intn(4)]) }
	b.WriteByte('[')
	n := rng.Intn(5)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		sp()
		b.Write(randJSONValue(rng, depth+1))
		sp()
	}
	b.WriteByte(']')
	return b.Bytes()
}

func randJSONValue(rng *rand.Rand, depth int) []byte {
	keys := []string{"type", "Type", "data", "DATA", "role", "content", "x", `ro\u006ce`, `a\"b`, "ſype"}
	switch k := rng.Intn(8); {
	case k == 0 && depth < 4:
		return randJSONArray(rng, depth)
	case k <= 2 && depth < 4:
		var b bytes.Buffer
		b.WriteByte('{')
		n := rng.Intn(5)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"` + keys[rng.Intn(len(keys))] + `" :`)
			b.Write(randJSONValue(rng, depth+1))
		}
		b.WriteByte('}')
		return b.Bytes()
	case k <= 5:
		pieces := []string{"a", `\"`, `\\`, `\n`, `\u00e9`, "é", "]", "}", ",", `\/`, "\xff", "aGk="}
		var sb strings.Builder
		sb.WriteByte('"')
		for i := rng.Intn(6); i > 0; i-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		sb.WriteByte('"')
		return []byte(sb.String())
	}
	return []byte([]string{"0", "-1.5e-3", "true", "false", "null", "12345"}[rng.Intn(6)])
}

// BenchmarkParseMessages parses a thread whose history holds four files of
// 4 MiB (as base64), and rewrites it with their notes.
func BenchmarkParseMessages(b *testing.B) {
	data := strings.Repeat("QUJD", 1<<20) // 4 MiB of base64
	var doc bytes.Buffer
	doc.WriteByte('[')
	for i := 0; i < 4; i++ {
		doc.WriteString(`{"role": "user", "content": [{"type": "text", "text": "here"}, {"type": "file", "mediaType": "application/pdf", "filename": "f.pdf", "data": "` + data + `"}]},`)
		doc.WriteString(`{"role": "assistant", "content": "ok"},`)
	}
	doc.WriteString(`{"role": "user", "content": "next"}]`)
	b.SetBytes(int64(doc.Len()))
	for i := 0; i < b.N; i++ {
		m, err := ParseMessages(doc.Bytes())
		if err != nil || len(m.Parts) != 4 {
			b.Fatal(err)
		}
		if _, err := m.Rewrite(map[int]string{0: "a", 1: "b", 2: "c", 3: "d"}); err != nil {
			b.Fatal(err)
		}
	}
}
