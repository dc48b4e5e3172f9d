package notebook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// TestJupyterParity edits random notebooks as Jupyter saves them and
// compares the bytes with what Jupyter saves for the edited notebook
// (testdata/jupyter_cases.py, which needs python3). Skipped without
// python3, unless WS_REQUIRE_PYTHON=1 (CI, whose .ci/run installs it).
func TestJupyterParity(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("WS_REQUIRE_PYTHON") == "1" {
			t.Fatalf("python3 is needed: %v", err)
		}
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(py, "testdata/jupyter_cases.py", "7", "600").Output()
	if err != nil {
		t.Fatalf("jupyter_cases.py: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var c struct {
			Before, After string
			Edit          struct {
				Op, Source, ID, Type string
				At                   int
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		nb, err := Parse([]byte(c.Before))
		if err != nil {
			t.Fatalf("case %d: Parse: %v\n%s", n, err, c.Before)
		}
		var got []byte
		switch c.Edit.Op {
		case "replace":
			got, err = nb.Replace(c.Edit.At, c.Edit.Source, c.Edit.Type)
		case "insert":
			got, err = nb.Insert(c.Edit.At, c.Edit.Type, c.Edit.Source, c.Edit.ID)
		case "delete":
			got = nb.Delete(c.Edit.At)
		}
		if err != nil {
			t.Fatalf("case %d: %s: %v", n, c.Edit.Op, err)
		}
		if string(got) != c.After {
			t.Fatalf("case %d: %s %+v:\n--- got\n%s\n--- Jupyter\n%s\n--- before\n%s", n, c.Edit.Op, c.Edit, got, c.After, c.Before)
		}
		if _, err := Parse(got); err != nil {
			t.Fatalf("case %d: the result does not parse: %v", n, err)
		}
		n++
	}
	if n != 600 {
		t.Fatalf("%d cases, want 600", n)
	}
}

const sample = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Title"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "b2",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hi\n"
     ]
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    },
    {
     "ename": "ValueError",
     "evalue": "bad",
     "output_type": "error",
     "traceback": [
      "\u001b[0;31mValueError\u001b[0m: bad"
     ]
    }
   ],
   "source": [
    "print('hi')\n",
    "plot()"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "language": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func TestRender(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := `nb.ipynb: 2 cells (1 markdown, 1 code), python, nbformat 4.5
<cell index="0" id="a1" type="markdown">
# Title
</cell>
<cell index="1" id="b2" type="code" execution_count="2">
print('hi')
plot()
<output type="stream" name="stdout">
hi
</output>
<output type="display_data" media="image/png 8 bytes">
<Figure>
</output>
<output type="error">
ValueError: bad
</output>
</cell>`
	if got := nb.Render("nb.ipynb", RenderOptions{Cell: -1, Outputs: true}); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	want = "nb.ipynb: 2 cells (1 markdown, 1 code), python, nbformat 4.5\n<cell index=\"1\" id=\"b2\" type=\"code\" execution_count=\"2\">\nprint('hi')\nplot()\n[3 outputs not shown]\n</cell>"
	if got := nb.Render("nb.ipynb", RenderOptions{Cell: 1}); got != want {
		t.Errorf("Render one cell without outputs:\n%s\nwant:\n%s", got, want)
	}
}

// An output without text/plain shows its markdown (or LaTeX) as its
// text; the other representations are listed.
func TestOutputText(t *testing.T) {
	for _, tc := range []struct{ data, text, media string }{
		{`{"text/plain": ["a"], "text/markdown": "**a**"}`, "a", "text/markdown 5 bytes"},
		{`{"text/markdown": ["**b**"], "text/html": "<b>b</b>"}`, "**b**", "text/html 8 bytes"},
		{`{"text/latex": "$x$", "image/png": "iVBORw0KGgo="}`, "$x$", "image/png 8 bytes"},
		{`{"application/vnd.jupyter.widget-view+json": {"model_id": "m"}}`, "", "application/vnd.jupyter.widget-view+json 17 bytes"},
		{`{"image/svg+xml": ["<svg>", "</svg>"], "image/png": ["iVBORw0K\n", "Ggo="]}`, "", "image/png 8 bytes, image/svg+xml 11 bytes"},
	} {
		src := `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "outputs": [{"output_type": "display_data", "data": ` + tc.data + `}]}]}`
		nb, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		o := nb.Cells[0].Outputs[0]
		var media []string
		for _, m := range o.Media {
			media = append(media, fmt.Sprintf("%s %d bytes", m.Type, m.Bytes))
		}
		if o.Text != tc.text || strings.Join(media, ", ") != tc.media {
			t.Errorf("%s: text %q, media %q; want %q, %q", tc.data, o.Text, media, tc.text, tc.media)
		}
		// Only base64 data is binary: an SVG is text, and a PNG stored
		// in lines is given without its line breaks.
		for _, m := range o.Media {
			if want := strings.HasPrefix(m.Type, "image/png"); m.Binary() != want || (want && m.Base64() != "iVBORw0KGgo=") {
				t.Errorf("%s: %s binary %v, base64 %q", tc.data, m.Type, m.Binary(), m.Base64())
			}
		}
	}
}

// A stream shows as a terminal leaves it: colour codes out, a progress
// bar at its last drawing.
func TestStreamText(t *testing.T) {
	src := `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "outputs": [{"output_type": "stream", "name": "stderr", "text": ["\u001b[32m 10%\r100%\u001b[0m\n", "done\n"]}]}]}`
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := nb.Cells[0].Outputs[0].Text; got != "100%\ndone\n" {
		t.Errorf("stream text %q", got)
	}
}

func TestShorten(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		sb.WriteString("line\n")
	}
	got := shorten(sb.String())
	if strings.Count(got, "line\n") != 2*keepLines || !strings.Contains(got, "[… 60 lines not shown …]\n") {
		t.Errorf("shorten of 100 lines:\n%s", got)
	}
	long := strings.Repeat("é", 10000)
	if got := shorten(long); !strings.Contains(got, "[… 6000 characters not shown …]") || !strings.HasPrefix(got, strings.Repeat("é", keepChars)+"\n") {
		t.Errorf("shorten of a long line: %.80q", got)
	}
	if got := shorten("short\n"); got != "short\n" {
		t.Errorf("shorten(short) = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "it is not valid JSON (it ends too soon)"},
		{"{\n \"cells\": [\n  {\"cell_type\": \"code\",]\n}", "it is not valid JSON (line 3"},
		{"[]", "it is not a JSON object"},
		{`{"cells": [], "nbformat": 3, "worksheets": []}`, "nbformat 3 notebook"},
		{`{"cells": []}`, "it has no nbformat version"},
		{`{"nbformat": 5, "cells": []}`, "it is an nbformat 5 notebook"},
		{`{"nbformat": 4}`, "it has no cells list"},
		{`{"nbformat": 4, "cells": {}}`, "its cells are not a list"},
		{`{"nbformat": 4, "cells": [{"source": "x"}]}`, "cell 0: it has no cell_type"},
		{`{"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}`, "cell 0: its source is neither"},
		{`{"nbformat": 4, "cells": [7]}`, "cell 0: it is not an object"},
		{`{"nbformat": 4, "cells": []} x`, "it has more after its JSON object"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": \"\xff\"}", "it is not UTF-8 text"},
	} {
		_, err := Parse([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.src, err, tc.want)
		}
	}
}

func TestFind(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref  string
		want int
		ok   bool
	}{
		{"a1", 0, true}, {"b2", 1, true}, {"0", 0, true}, {"1", 1, true}, {"-1", 1, true}, {"-2", 0, true},
		{"2", 0, false}, {"-3", 0, false}, {"c3", 0, false}, {"", 0, false},
	} {
		if got, ok := nb.Find(tc.ref); got != tc.want || ok != tc.ok {
			t.Errorf("Find(%q) = %d, %v; want %d, %v", tc.ref, got, ok, tc.want, tc.ok)
		}
	}
}

// Layouts other than Jupyter's: each edit keeps the file's own.
func TestOtherLayouts(t *testing.T) {
	compact := `{"cells":[{"cell_type":"code","source":"a = 1","metadata":{},"outputs":[],"execution_count":null}],"nbformat":4,"nbformat_minor":4}`
	nb, err := Parse([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Replace(0, "b = 2\nc = 3", "")
	if want := `{"cells":[{"cell_type":"code","source":"b = 2\nc = 3","metadata":{},"outputs":[],"execution_count":null}],"nbformat":4,"nbformat_minor":4}`; err != nil || string(got) != want {
		t.Errorf("Replace in a compact notebook:\n%s\nwant\n%s", got, want)
	}
	got, _ = nb.Replace(0, "# T", Markdown)
	if want := `{"cells":[{"cell_type":"markdown","source":"# T","metadata":{}}],"nbformat":4,"nbformat_minor":4}`; string(got) != want {
		t.Errorf("code to markdown in a compact notebook:\n%s\nwant\n%s", got, want)
	}
	if nb.HasIDs() {
		t.Error("HasIDs in a 4.4 notebook without ids")
	}
	got, _ = nb.Insert(1, Markdown, "x\ny", "")
	if want := `{"cells":[{"cell_type":"code","source":"a = 1","metadata":{},"outputs":[],"execution_count":null},{"cell_type":"markdown","metadata":{},"source":["x\n","y"]}],"nbformat":4,"nbformat_minor":4}`; string(got) != want {
		t.Errorf("Insert in a compact notebook:\n%s\nwant\n%s", got, want)
	}

	two := "{\n  \"nbformat\": 4,\n  \"nbformat_minor\": 5,\n  \"cells\": []\n}"
	nb, err = Parse([]byte(two))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = nb.Insert(0, Code, "x", "abc")
	want := "{\n  \"nbformat\": 4,\n  \"nbformat_minor\": 5,\n  \"cells\": [\n    {\n      \"cell_type\": \"code\",\n      \"execution_count\": null,\n      \"id\": \"abc\",\n      \"metadata\": {},\n      \"outputs\": [],\n      \"source\": [\n        \"x\"\n      ]\n    }\n  ]\n}"
	if string(got) != want {
		t.Errorf("Insert in an empty notebook indented by two:\n%s\nwant\n%s", got, want)
	}
	nb, _ = Parse(got)
	if got := nb.Delete(0); string(got) != two {
		t.Errorf("Delete of the last cell:\n%s\nwant\n%s", got, two)
	}
	if _, err := nb.Replace(0, "\xff", ""); err == nil {
		t.Error("Replace with a source that is not UTF-8: no error")
	}
	if id := nb.NewID(); len(id) != 8 || nb.hasID(id) {
		t.Errorf("NewID = %q", id)
	}
}

// A notebook saved with CRLF line ends (or tabs) keeps them in what an
// edit writes.
func TestCRLFAndTabs(t *testing.T) {
	for _, tc := range []struct{ name, nl, unit string }{{"crlf", "\r\n", " "}, {"tabs", "\n", "\t"}} {
		jupyter := strings.NewReplacer("\n", tc.nl, "\x00", tc.unit)
		before := jupyter.Replace("{\n\x00\"cells\": [\n\x00\x00{\n\x00\x00\x00\"cell_type\": \"raw\",\n\x00\x00\x00\"metadata\": {},\n\x00\x00\x00\"source\": []\n\x00\x00}\n\x00],\n\x00\"nbformat\": 4,\n\x00\"nbformat_minor\": 4\n}\n")
		nb, err := Parse([]byte(before))
		if err != nil {
			t.Fatal(err)
		}
		got, err := nb.Replace(0, "a\nb", "")
		want := jupyter.Replace("{\n\x00\"cells\": [\n\x00\x00{\n\x00\x00\x00\"cell_type\": \"raw\",\n\x00\x00\x00\"metadata\": {},\n\x00\x00\x00\"source\": [\n\x00\x00\x00\x00\"a\\n\",\n\x00\x00\x00\x00\"b\"\n\x00\x00\x00]\n\x00\x00}\n\x00],\n\x00\"nbformat\": 4,\n\x00\"nbformat_minor\": 4\n}\n")
		if err != nil || string(got) != want {
			t.Errorf("%s: Replace:\n%q\nwant\n%q", tc.name, got, want)
		}
		got, _ = nb.Insert(1, Raw, "", "")
		want = jupyter.Replace("{\n\x00\"cells\": [\n\x00\x00{\n\x00\x00\x00\"cell_type\": \"raw\",\n\x00\x00\x00\"metadata\": {},\n\x00\x00\x00\"source\": []\n\x00\x00},\n\x00\x00{\n\x00\x00\x00\"cell_type\": \"raw\",\n\x00\x00\x00\"metadata\": {},\n\x00\x00\x00\"source\": []\n\x00\x00}\n\x00],\n\x00\"nbformat\": 4,\n\x00\"nbformat_minor\": 4\n}\n")
		if string(got) != want {
			t.Errorf("%s: Insert:\n%q\nwant\n%q", tc.name, got, want)
		}
	}
}

// TestScanMatchesEncodingJSON checks the scanner's idea of valid JSON
// against encoding/json's on many small mutations of a notebook (bytes
// changed, dropped, doubled), and on a few hand-picked cases.
func TestScanMatchesEncodingJSON(t *testing.T) {
	valid := func(b []byte) bool {
		i := jsonenc.SkipSpace(b, 0)
		end, err := skipValue(b, i)
		return err == nil && jsonenc.SkipSpace(b, end) == len(b)
	}
	cases := []string{`"a\qb"`, `"\u12"`, `"\u12G4"`, "\"a\x01b\"", `01`, `-`, `1.`, `1e`, `1e+`, `-0.5e-3`, `tru`, `nul`, `[1,]`, `{"a":1,}`,
		`{"a" 1}`, `{1:2}`, `[`, `{`, `"`, `[1 2]`, `{"a":[{"b":null}]}`, ` [] `, `"\/\b\f\n\r\t\"\\"`, `"é\u00e9"`}
	r := rand.New(rand.NewPCG(1, 2))
	chars := []byte(`{}[]",:\ 0123456789.eE+-tfnulrsa` + "\x00\n")
	for i := 0; i < 5000; i++ {
		b := []byte(sample)
		for k := 0; k < 1+r.IntN(3); k++ {
			j := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[j] = chars[r.IntN(len(chars))]
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b = append(b[:j+1], b[j:]...)
			}
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestAttachments(t *testing.T) {
	// Attachments counts a cell's attachments by name: none, an empty
	// object, and two.
	nb, err := Parse([]byte(`{"cells": [
 {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "x"},
 {"attachments": {}, "cell_type": "markdown", "id": "b", "metadata": {}, "source": "x"},
 {"attachments": {"a.png": {"image/png": "iVBO"}, "b.gif": {"image/gif": "R0lG"}}, "cell_type": "raw", "id": "c", "metadata": {}, "source": "x"}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 0, 2} {
		if got := nb.Attachments(i); got != want {
			t.Errorf("Attachments(%d) = %d, want %d", i, got, want)
		}
	}
}
