package editmatch

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The near-miss corpus: realistic files, edits made correctly (an exact
// old_string), then the same edits as a model might send them, with the
// slips models make. Each case expects the file the correct edit gives, or
// a refusal (traps: another place, different content, an ambiguous
// block). A wrong apply is an edit that lands anywhere else, or any edit
// where a refusal was expected.

type corpusFile struct {
	name    string
	content string
	style   string // "tab", "2", "4": how it indents
	edits   [][2]string
}

var corpusFiles = []corpusFile{
	{name: "add.py", style: "4", content: "import os\n\n\ndef add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n    if a:\n        return a - b\n    return b\n\n\nclass Greeter:\n    def __init__(self, name):\n        self.name = name\n\n    def greet(self):\n        print(f\"Hello, {self.name}!\")\n        return True\n",
		edits: [][2]string{
			{"    if a:\n        return a - b", "    if a:\n        return a + b"},
			{"    def greet(self):\n        print(f\"Hello, {self.name}!\")\n        return True", "    def greet(self):\n        print(f\"Hi, {self.name}!\")\n        return True"},
			{"        self.name = name\n\n    def greet(self):", "        self.name = name\n        self.count = 0\n\n    def greet(self):"},
			{"def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n    if a:", "def add(a, b, c=0):\n    \"\"\"Add two numbers.\"\"\"\n    if a:\n        a += c"},
		}},
	{name: "greet.py", style: "4", content: "# -*- coding: utf-8 -*-\nGREETING = \"Hello, world\"\nNAME = 'Jos\u00e9'\nMESSAGE = f\"{GREETING}, {NAME}!\"\n\n\ndef show(x):\n    print(\"value:\", x)\n    return x\n",
		edits: [][2]string{
			{"NAME = 'Jos\u00e9'\nMESSAGE = f\"{GREETING}, {NAME}!\"", "NAME = 'Jos\u00e9'\nMESSAGE = f\"{GREETING} {NAME}!\""},
			{"def show(x):\n    print(\"value:\", x)\n    return x", "def show(x):\n    print(\"value:\", x)\n    return x * 2"},
			{"GREETING = \"Hello, world\"\nNAME = 'Jos\u00e9'", "GREETING = \"Hi, world\"\nNAME = 'Jos\u00e9'"},
			{"MESSAGE = f\"{GREETING}, {NAME}!\"\n\n\ndef show(x):", "MESSAGE = f\"{GREETING}, {NAME}!\"\nDEBUG = False\n\n\ndef show(x):"},
			{"    print(\"value:\", x)\n    return x\n", "    print(\"value:\", x)\n\n    return x\n"},
		}},
	{name: "main.go", style: "tab", content: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tif i%2 == 0 {\n\t\t\tfmt.Println(\"even\", i)\n\t\t}\n\t}\n}\n\n// helper returns twice x.\nfunc helper(x int) int {\n\treturn x * 2\n}\n",
		edits: [][2]string{
			{"\t\tif i%2 == 0 {\n\t\t\tfmt.Println(\"even\", i)\n\t\t}", "\t\tif i%2 == 0 {\n\t\t\tfmt.Println(\"even\", i)\n\t\t} else {\n\t\t\tfmt.Println(\"odd\", i)\n\t\t}"},
			{"func helper(x int) int {\n\treturn x * 2\n}", "func helper(x int) int {\n\treturn x * 3\n}"},
			{"func main() {\n\tfor i := 0; i < 3; i++ {", "func main() {\n\tfor i := 0; i < 5; i++ {"},
		}},
	{name: "total.ts", style: "2", content: "export function total(items: Item[]): number {\n  let sum = 0;\n  for (const item of items) {\n    sum += item.price;\n  }\n  return sum;\n}\n\nexport const label = 'Total';\n",
		edits: [][2]string{
			{"  for (const item of items) {\n    sum += item.price;\n  }", "  for (const item of items) {\n    sum += item.price * item.qty;\n  }"},
			{"  let sum = 0;\n  for (const item of items) {", "  let sum = 0;\n  // add up\n  for (const item of items) {"},
			{"export const label = 'Total';", "export const label = 'Sum';"},
		}},
	{name: "notes.md", style: "2", content: "# Notes\n\nHe said \u201cstop\u201d \u2014 twice.\nThe caf\u00e9 is open.\n\nNext steps:\n- call Bob\n- email Alice\n",
		edits: [][2]string{
			{"Next steps:\n- call Bob", "Next steps:\n- call Bob today"},
			{"He said \u201cstop\u201d \u2014 twice.\nThe caf\u00e9 is open.", "He said \u201cstop\u201d \u2014 twice.\nThe caf\u00e9 is closed."},
		}},
	{name: "app.ini", style: "4", content: "[server]\r\nhost = localhost\r\nport = 8080\r\n\r\n[client]\r\nretries = 3\r\n",
		edits: [][2]string{
			{"[server]\r\nhost = localhost\r\nport = 8080", "[server]\r\nhost = 0.0.0.0\r\nport = 8080"},
			{"[client]\r\nretries = 3\r\n", "[client]\r\nretries = 5\r\ntimeout = 10\r\n"},
		}},
	{name: "hello.c", style: "tab", content: "#include <stdio.h>\n\nint main(void) {\n\tprintf(\"hello\\n\");\n\treturn 0;\n}\n",
		edits: [][2]string{
			{"\tprintf(\"hello\\n\");\n\treturn 0;", "\tprintf(\"hi\\n\");\n\treturn 0;"},
		}},
	{name: "package.json", style: "2", content: "{\n  \"name\": \"ws\",\n  \"version\": \"1.0.0\"\n}",
		edits: [][2]string{
			{"  \"version\": \"1.0.0\"\n}", "  \"version\": \"1.1.0\"\n}"},
			{"{\n  \"name\": \"ws\",", "{\n  \"name\": \"ws-cli\","},
		}},
	{name: "Program.cs", style: "4", content: "\uFEFFusing System;\r\n\r\nnamespace App\r\n{\r\n    class Program\r\n    {\r\n        static void Main()\r\n        {\r\n            Console.WriteLine(\"Hi\");\r\n        }\r\n    }\r\n}\r\n",
		edits: [][2]string{
			{"        static void Main()\r\n        {\r\n            Console.WriteLine(\"Hi\");", "        static void Main()\r\n        {\r\n            Console.WriteLine(\"Hello\");"},
			{"\uFEFFusing System;", "\uFEFFusing System;\r\nusing System.IO;"},
		}},
}

// A slip turns a correct edit into the one the model sends. It may change
// the file too (to put the slip on the file's side); want is then the
// file the correct edit gives. ok is false when the slip does not apply.
type slipFunc func(f corpusFile, old, new string) (file, o, n, want string, ok bool)

// plain makes a slip that changes old and new only.
func plain(fn func(f corpusFile, old, new string) (string, string, bool)) slipFunc {
	return func(f corpusFile, old, new string) (string, string, string, string, bool) {
		o, n, ok := fn(f, old, new)
		return f.content, o, n, strings.Replace(f.content, old, new, 1), ok && o != old
	}
}

func mapLines(s string, fn func(i int, l string) string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = fn(i, l)
	}
	return strings.Join(ls, "\n")
}

// reindentText moves each line from the file's indentation style to
// another: "tab", or a number of spaces per level.
func reindentText(s, from, to string) string {
	unit := func(st string) int {
		if st == "tab" {
			return 0
		}
		n := 0
		fmt.Sscan(st, &n)
		return n
	}
	uf, ut := unit(from), unit(to)
	return mapLines(s, func(_ int, l string) string {
		ind := leadingSpace([]byte(l))
		var level, extra int
		if uf == 0 {
			level = strings.Count(string(ind), "\t")
			extra = len(ind) - level
		} else {
			level, extra = len(ind)/uf, len(ind)%uf
		}
		rest := l[len(ind):]
		if ut == 0 {
			return strings.Repeat("\t", level) + strings.Repeat(" ", extra) + rest
		}
		return strings.Repeat(" ", level*ut+extra) + rest
	})
}

// unchangedLines reports, for each line of old, whether new keeps it.
func unchangedLines(old, new string) map[int]bool {
	ol, nl := splitText(old).lines, splitText(new).lines
	keep := map[int]bool{}
	for _, o := range lineDiff(ol, nl) {
		if o.kind == opEqual {
			keep[o.a] = true
		}
	}
	return keep
}

// onUnchanged applies fn to the lines new keeps from old, in both.
func onUnchanged(old, new string, fn func(string) string) (string, string) {
	keep := unchangedLines(old, new)
	kept := map[string]bool{}
	o := mapLines(old, func(i int, l string) string {
		if keep[i] {
			kept[l] = true
			return fn(l)
		}
		return l
	})
	n := mapLines(new, func(_ int, l string) string {
		if kept[l] {
			return fn(l)
		}
		return l
	})
	return o, n
}

// commonIndent returns the indentation all non-blank lines of s share.
func commonIndent(s string) string {
	ind := ""
	first := true
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		li := string(leadingSpace([]byte(l)))
		if first {
			ind, first = li, false
		}
		for !strings.HasPrefix(li, ind) {
			ind = ind[:len(ind)-1]
		}
	}
	return ind
}

func gutterText(s string, first int, sep string) string {
	return mapLines(s, func(i int, l string) string { return fmt.Sprintf("%6d%s%s", first+i, sep, l) })
}

func lineOf(content, old string) int {
	return strings.Count(content[:strings.Index(content, old)], "\n") + 1
}

var quotes = strings.NewReplacer(`"`, "\u201c", `'`, "\u2019")

var slips = []struct {
	name string
	fn   slipFunc
}{
	{"exact", func(f corpusFile, old, new string) (string, string, string, string, bool) {
		return f.content, old, new, strings.Replace(f.content, old, new, 1), true
	}},
	{"lf-on-crlf", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return strings.ReplaceAll(old, "\r\n", "\n"), strings.ReplaceAll(new, "\r\n", "\n"), strings.Contains(old, "\r\n")
	})},
	{"crlf-on-lf", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return strings.ReplaceAll(old, "\n", "\r\n"), strings.ReplaceAll(new, "\n", "\r\n"), !strings.Contains(f.content, "\r\n") && strings.Contains(old, "\n")
	})},
	{"bom-in-old", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return bom + old, new, !strings.HasPrefix(old, bom)
	})},
	{"trailing-in-old", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return mapLines(old, func(_ int, l string) string {
			return strings.TrimRight(l, "\r") + "  " + l[len(strings.TrimRight(l, "\r")):]
		}), new, true
	})},
	{"trailing-in-file", func(f corpusFile, old, new string) (string, string, string, string, bool) {
		if len(unchangedLines(old, new)) == 0 {
			return "", "", "", "", false
		}
		add := func(l string) string {
			t := strings.TrimRight(l, "\r")
			if t == "" {
				return l
			}
			return t + " \t" + l[len(t):]
		}
		fo, fn := onUnchanged(old, new, add)
		file := strings.Replace(f.content, old, fo, 1)
		if strings.Contains(file, old) {
			// Still exact (old ends inside the line): Mastra's result.
			return file, old, new, strings.Replace(file, old, new, 1), true
		}
		return file, old, new, strings.Replace(file, fo, fn, 1), true
	}},
	{"indent-other-width", plain(func(f corpusFile, old, new string) (string, string, bool) {
		to := map[string]string{"4": "2", "2": "4", "tab": "4"}[f.style]
		return reindentText(old, f.style, to), reindentText(new, f.style, to), true
	})},
	{"indent-tabs-or-8", plain(func(f corpusFile, old, new string) (string, string, bool) {
		to := map[string]string{"4": "tab", "2": "tab", "tab": "8"}[f.style]
		return reindentText(old, f.style, to), reindentText(new, f.style, to), true
	})},
	{"dedented", plain(func(f corpusFile, old, new string) (string, string, bool) {
		ind := commonIndent(old)
		if ind == "" {
			return "", "", false
		}
		cut := func(s string) string {
			return mapLines(s, func(_ int, l string) string { return strings.TrimPrefix(l, ind) })
		}
		return cut(old), cut(new), true
	})},
	{"indented-more", plain(func(f corpusFile, old, new string) (string, string, bool) {
		if strings.HasPrefix(old, bom) {
			return "", "", false // a model does not indent a byte-order mark
		}
		add := map[string]string{"4": "    ", "2": "  ", "tab": "\t"}[f.style]
		in := func(s string) string {
			return mapLines(s, func(_ int, l string) string {
				if strings.TrimSpace(l) == "" {
					return l
				}
				return add + l
			})
		}
		return in(old), in(new), true
	})},
	{"gutter", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return gutterText(old, lineOf(f.content, old), "→"), new, true
	})},
	{"gutter-both", plain(func(f corpusFile, old, new string) (string, string, bool) {
		n := lineOf(f.content, old)
		return gutterText(old, n, "→"), gutterText(new, n, "→"), true
	})},
	{"cat-n", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return gutterText(old, lineOf(f.content, old), "\t"), new, true
	})},
	{"escaped", func(f corpusFile, old, new string) (string, string, string, string, bool) {
		esc := strings.NewReplacer("\r", "", "\n", `\n`, "\t", `\t`).Replace
		want := strings.Replace(f.content, old, new, 1)
		if strings.Contains(f.content, `\n`) || strings.Contains(f.content, `\t`) {
			want = "" // the file has such literals: never decoded
		} else if strings.Contains(old, "\r\n") {
			want = strings.Replace(f.content, old, strings.ReplaceAll(strings.ReplaceAll(new, "\r\n", "\n"), "\n", "\r\n"), 1)
		}
		return f.content, esc(old), esc(new), want, strings.Contains(old, "\n")
	}},
	{"blank-dropped", plain(func(f corpusFile, old, new string) (string, string, bool) {
		drop := func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n\r\n", "\r\n"), "\n\n", "\n")
		}
		return drop(old), drop(new), strings.Contains(old, "\n\n") || strings.Contains(old, "\r\n\r\n")
	})},
	{"blank-added", plain(func(f corpusFile, old, new string) (string, string, bool) {
		// Before the last line, when the edit keeps the last two lines.
		i, j := strings.LastIndex(old, "\n"), strings.LastIndex(new, "\n")
		if i < 0 || j < 0 || old[i:] != new[j:] {
			return "", "", false
		}
		oi, nj := strings.LastIndex(old[:i], "\n"), strings.LastIndex(new[:j], "\n")
		if old[oi+1:i] != new[nj+1:j] {
			return "", "", false
		}
		return old[:i] + "\n" + old[i:], new[:j] + "\n" + new[j:], true
	})},
	{"smart-quotes", plain(func(f corpusFile, old, new string) (string, string, bool) {
		o, n := onUnchanged(old, new, quotes.Replace)
		return o, n, true
	})},
	{"ascii-punctuation", plain(func(f corpusFile, old, new string) (string, string, bool) {
		r := strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2014", "-")
		o, n := onUnchanged(old, new, r.Replace)
		return o, n, true
	})},
	{"nbsp", plain(func(f corpusFile, old, new string) (string, string, bool) {
		o, n := onUnchanged(old, new, func(l string) string { return strings.Replace(l, " = ", "\u00a0= ", 1) })
		return o, n, true
	})},
	{"nfd", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return norm.NFD.String(old), norm.NFD.String(new), true
	})},
	{"final-newline-in-old", func(f corpusFile, old, new string) (string, string, string, string, bool) {
		if strings.HasSuffix(f.content, "\n") || !strings.HasSuffix(f.content, old) {
			return "", "", "", "", false
		}
		return f.content, old + "\n", new + "\n", strings.Replace(f.content, old, new, 1), true
	}},
	{"partial-first-line-crlf", plain(func(f corpusFile, old, new string) (string, string, bool) {
		if !strings.Contains(old, "\r\n") {
			return "", "", false
		}
		first, _, _ := strings.Cut(old, "\r\n")
		nfirst, _, _ := strings.Cut(new, "\r\n")
		if first != nfirst || len(strings.TrimSpace(first)) < 4 {
			return "", "", false
		}
		cut := len(first) - len(strings.TrimLeft(first, " \t")) + 2
		lf := func(s string) string { return strings.ReplaceAll(s[cut:], "\r\n", "\n") }
		return lf(old), lf(new), true
	})},
	{"lf-and-indent", plain(func(f corpusFile, old, new string) (string, string, bool) {
		to := map[string]string{"4": "2", "2": "4", "tab": "4"}[f.style]
		lf := func(s string) string { return reindentText(strings.ReplaceAll(s, "\r\n", "\n"), f.style, to) }
		return lf(old), lf(new), strings.Contains(old, "\r\n")
	})},
	{"gutter-and-trailing", plain(func(f corpusFile, old, new string) (string, string, bool) {
		g := gutterText(old, lineOf(f.content, old), "→")
		return mapLines(g, func(_ int, l string) string { return l + " " }), new, true
	})},
	{"first-line-dedented", plain(func(f corpusFile, old, new string) (string, string, bool) {
		o, n := strings.TrimLeft(old, " \t"), strings.TrimLeft(new, " \t")
		return o, n, len(o) != len(old) && len(old)-len(o) == len(new)-len(n)
	})},
	{"lf-and-trailing", plain(func(f corpusFile, old, new string) (string, string, bool) {
		lf := strings.ReplaceAll(old, "\r\n", "\n")
		return mapLines(lf, func(_ int, l string) string { return l + " " }), strings.ReplaceAll(new, "\r\n", "\n"), strings.Contains(old, "\r\n")
	})},
	{"gutter-crlf-copied", plain(func(f corpusFile, old, new string) (string, string, bool) {
		// read_file shows CRLF lines with their \r; the model drops it.
		return gutterText(strings.ReplaceAll(old, "\r\n", "\n"), lineOf(f.content, old), "→"), strings.ReplaceAll(new, "\r\n", "\n"), strings.Contains(old, "\r\n")
	})},
	{"final-newline-dropped", plain(func(f corpusFile, old, new string) (string, string, bool) {
		return strings.TrimSuffix(old, "\n"), strings.TrimSuffix(new, "\n"), strings.HasSuffix(old, "\n") && strings.HasSuffix(new, "\n")
	})},
	{"curly-and-indent", plain(func(f corpusFile, old, new string) (string, string, bool) {
		to := map[string]string{"4": "2", "2": "4", "tab": "4"}[f.style]
		o, n := onUnchanged(old, new, quotes.Replace)
		return reindentText(o, f.style, to), reindentText(n, f.style, to), true
	})},
	{"dedented-and-blank-dropped", plain(func(f corpusFile, old, new string) (string, string, bool) {
		ind := commonIndent(old)
		if ind == "" || !strings.Contains(old, "\n\n") {
			return "", "", false
		}
		cut := func(s string) string {
			s = strings.ReplaceAll(s, "\n\n", "\n")
			return mapLines(s, func(_ int, l string) string { return strings.TrimPrefix(l, ind) })
		}
		return cut(old), cut(new), true
	})},
}

// Slips that change content: the edit must be refused.
var contentSlips = []struct {
	name string
	fn   func(old string) (string, bool)
}{
	{"typo", func(old string) (string, bool) {
		for _, w := range []string{"return", "print", "sum", "host", "version", "Console", "label", "Bob", "name", "printf", "café", "if", "int"} {
			if strings.Contains(old, w) {
				return strings.Replace(old, w, w[:len(w)-1]+"x", 1), true
			}
		}
		return "", false
	}},
	{"line-dropped", func(old string) (string, bool) {
		ls := strings.Split(old, "\n")
		if len(ls) < 3 || strings.TrimSpace(ls[1]) == "" {
			return "", false
		}
		return strings.Join(append(ls[:1:1], ls[2:]...), "\n"), true
	}},
	{"lines-joined", func(old string) (string, bool) {
		a, b, ok := strings.Cut(old, "\n")
		return strings.TrimRight(a, "\r") + " " + strings.TrimLeft(b, " \t\r\n"), ok
	}},
	{"elided", func(old string) (string, bool) {
		ls := strings.Split(old, "\n")
		if len(ls) < 3 {
			return "", false
		}
		ls[1] = "    // ... existing code ..."
		return strings.Join(ls, "\n"), true
	}},
	{"flattened", func(old string) (string, bool) {
		ls := strings.Split(old, "\n")
		depths := map[string]bool{}
		for i, l := range ls {
			if strings.TrimSpace(l) != "" {
				depths[string(leadingSpace([]byte(l)))] = true
			}
			ls[i] = strings.TrimLeft(l, " \t")
		}
		return strings.Join(ls, "\n"), len(depths) > 1
	}},
}

// Traps: files where a forgiving matcher could pick the wrong place.
var corpusTraps = []struct {
	name     string
	content  string
	old, new string
	all      bool
	want     string // "" when the edit must be refused
}{
	{"exact once, loosely elsewhere", "def f():\n    return 1\n\ndef g():\n    return 1 \n", "def f():\n    return 1", "def f():\n    return 2", false,
		"def f():\n    return 2\n\ndef g():\n    return 1 \n"},
	{"exact once inside a line, loosely as a line", "x = 1 # one\n  x = 1\n", "x = 1 #", "x = 2 #", false, "x = 2 # one\n  x = 1\n"},
	{"trailing here, indentation there", "def f():\n    x = 1 \n    y = 2\n\ndef h():\n  def f():\n      x = 1\n      y = 2\n", "def f():\n    x = 1\n    y = 2", "def f():\n    x = 3\n    y = 2", false, ""},
	{"line endings here, indentation there", "if a:\r\n    go()\r\nif a:\r\n  go()\r\n", "if a:\n    go()", "if a:\n    stop()", false, ""},
	{"two places at one level", "a = 1 \nb = 2\n\na = 1\t\nb = 2\n", "a = 1\nb = 2", "a = 3\nb = 2", false, ""},
	{"replace_all at mixed levels", "a = 1 \nb = 2\n\n  a = 1\n  b = 2\n", "a = 1\nb = 2", "a = 3\nb = 2", true, ""},
	{"replace_all at one level", "a = 1 \nb = 2\n\na = 1\t\nb = 2\n", "a = 1\nb = 2", "a = 3\nb = 2", true, "a = 3\nb = 2\n\na = 3\nb = 2\n"},
	{"flattened Python, two structures", "if a:\n    x()\n    y()\nif a:\n    x()\ny()\n", "if a:\nx()\ny()", "if a:\nx()\nz()", false, ""},
	{"different nesting only", "for i in r:\n    if i:\n        a()\n    b()\n", "for i in r:\n    if i:\n        a()\n        b()", "for i in r:\n    if i:\n        a()\n        c()", false, ""},
	{"quotes differ in content", "print(\u201cyes\u201d)\n", "print(\"no\")", "print(\"maybe\")", false, ""},
	{"dash differs in content", "a \u2014 b\n", "a + b", "a * b", false, ""},
	{"escape skipped: file has literal \\n", "s = \"x\\n\"\na\nb\n", `a\nb`, `c\nd`, false, ""},
	{"escape skipped: file has literal \\t", "s = \"x\\t\"\na\n\tb\n", `a\n\tb`, `c`, false, ""},
	{"gutter numbers wrong", "one\ntwo\n", "     4→one\n     6→two", "x", false, ""},
	{"gutter, text differs", "one\ntwo\n", "     1→one\n     2→tow", "x", false, ""},
	{"blank-line drift onto another block", "def a():\n    pass\n\n\n\n\n\n\ndef b():\n    pass\n", "    pass\ndef b():", "    pass\ndef c():", false, ""},
	{"blank-line drift: two candidates", "a\n\nb\nx\na\nb\n", "a\n\n\nb", "a\n\n\nc", false, ""},
	{"nfd, content differs", "cafe\u0301 noir\n", "caf\u00e9 blanc", "x", false, ""},
	{"partial line, wrong place", "foo(a, b)\r\nbar(a, b)\r\n", "oo(a, c)\nbar", "x\nbar", false, ""},
	{"CRLF block appears twice", "a\r\nb\r\na\r\nb\r\n", "a\nb", "c\nd", false, ""},
	{"CRLF block twice with replace_all", "a\r\nb\r\na\r\nb\r\n", "a\nb", "c\nd", true, "c\r\nd\r\nc\r\nd\r\n"},
	{"indentation differs and a typo", "def f():\n    return a - b\n", "def f():\n  return a - c", "def f():\n  return a + c", false, ""},
	{"smart quotes one place, ascii another", "say(\u201chi\u201d)\nsay(\"hi\") \n", "say(\"hi\")\n", "say(\"yo\")\n", false, ""},
	{"nbsp one place, tab another", "a\u00a0= 1\n\ta = 1\n", "a = 1  ", "a = 2", false, ""},
	{"one-line old, indentation here, trailing there", "    go()\ngo() \n", "  go() ", "  run()", false, ""},
	{"one line exact inside an indented line (Mastra)", "    go()\ngo() \n", "  go()", "  run()", false, "    run()\ngo() \n"},
	{"whitespace-only old_string", "a\n\n\nb\n", "\n  \n", "x", false, ""},
	{"empty old_string", "a\n", "", "x", false, ""},
	{"old in a longer line only loosely", "x = \u201cab\u201d + \u201cab\u201d\n", "\"ab\"", "\"cd\"", false, ""},
	{"mixed tabs and spaces in old", "if a:\n    b()\n    c()\n", "if a:\n\tb()\n    c()", "if a:\n\tb()\n    d()", false, ""},
	{"structure differs after dedent", "def f():\n    if a:\n        b()\n    c()\n", "if a:\nb()\nc()", "if a:\nb()\nd()", false, ""},
	{"file holds gutter text, old gutter reads elsewhere", "     1→a\n     2→b\n\na \nb\n", "     1→a\n     2→b ", "x", false, ""},
	{"literal escapes in the file are exact", "a\nb\nx = 'a\\nb'\n", `a\nb`, `c`, false, "a\nb\nx = 'c'\n"},
	{"one line: exact inside a line beats a loose infix", "call(\u201cx\u201d) + 1\n  call(\"x\")  \n", "call(\"x\") ", "call(\"y\")", false, "call(\u201cx\u201d) + 1\n  call(\"y\") \n"},
	{"one line: infix here, whole line there", "call(\u201cx\u201d) + 1\n  call(\"x\")\t\n", "call(\"x\") ", "call(\"y\")", false, ""},
	{"first line a suffix in two places", "aa = 1\r\nb = 2\r\nxa = 1\r\nb = 2\r\n", "a = 1\nb = 2", "a = 3\nb = 2", false, ""},
	{"replace_all with one place of another structure", "if a:\n  x()\n  y()\nif a:\n  x()\ny()\n", "if a:\n    x()\n    y()", "if a:\n    z()", true, ""},
	{"blank drift in one, trailing space in other", "a\n\nb\n\na \nb\n", "a\nb", "c", false, ""},
	{"the whole old_string is one line ending", "a\n\nb\n", "\n", "x", false, ""},
	{"unicode here, normalization there", "caf\u00e9 \u201cx\u201d\ncafe\u0301 \"x\" \n", "caf\u00e9 \"x\"\n", "tea\n", false, ""},
	{"tab-indented file, old with spaces, two candidates", "func a() {\n\tif x {\n\t\treturn\n\t}\n}\nfunc b() {\n    if x {\n        return\n    }\n}\n", "  if x {\n    return\n  }", "  if y {\n    return\n  }", false, ""},
	{"old matches across a function boundary loosely", "def a():\n    return 1\ndef b():\n    return 1\n", "    return 1\n", "    return 2\n", false, ""},
}

func TestCorpus(t *testing.T) {
	type result struct{ applied, refused, miss, wrong int }
	var r result
	bySlip := map[string]*result{}
	var kinds []string
	total := 0
	run := func(name, file, old, new string, all bool, want string) {
		total++
		kind := name[strings.LastIndex(name, "/")+1:]
		if strings.HasPrefix(name, "trap/") {
			kind = "trap"
		}
		k := bySlip[kind]
		if k == nil {
			k = &result{}
			bySlip[kind] = k
			kinds = append(kinds, kind)
		}
		m, err := Apply([]byte(file), old, new, all)
		switch {
		case want == "" && err != nil:
			r.refused++
			k.refused++
		case want == "":
			r.wrong++
			k.wrong++
			t.Errorf("WRONG %s: applied (%s) %q, want a refusal\nold %q", name, m.Fallback, m.Content(), old)
		case err != nil:
			r.miss++
			k.miss++
			t.Logf("miss %s: %v\nold %q", name, strings.SplitN(err.Error(), "\n", 3), old)
		case string(m.Content()) != want:
			r.wrong++
			k.wrong++
			t.Errorf("WRONG %s (%s):\n got %q\nwant %q\nold %q new %q", name, m.Fallback, m.Content(), want, old, new)
		default:
			r.applied++
			k.applied++
		}
		if err == nil {
			checkMatch(t, []byte(file), old, new, all, m)
		}
	}
	for _, f := range corpusFiles {
		for ei, e := range f.edits {
			if strings.Count(f.content, e[0]) != 1 {
				t.Fatalf("%s edit %d: old_string is not unique in the file", f.name, ei)
			}
			for _, s := range slips {
				file, o, n, want, ok := s.fn(f, e[0], e[1])
				if !ok {
					continue
				}
				run(fmt.Sprintf("%s#%d/%s", f.name, ei, s.name), file, o, n, false, want)
			}
			for _, s := range contentSlips {
				o, ok := s.fn(e[0])
				if !ok || strings.Contains(f.content, o) {
					continue
				}
				run(fmt.Sprintf("%s#%d/%s", f.name, ei, s.name), f.content, o, e[1], false, "")
			}
		}
	}
	for _, tr := range corpusTraps {
		run("trap/"+tr.name, tr.content, tr.old, tr.new, tr.all, tr.want)
	}
	for _, k := range kinds {
		x := bySlip[k]
		t.Logf("  %-28s applied %3d  refused %3d  missed %2d  wrong %d", k, x.applied, x.refused, x.miss, x.wrong)
	}
	t.Logf("corpus: %d cases: %d correct applies, %d correct refusals, %d misses, %d WRONG applies",
		total, r.applied, r.refused, r.miss, r.wrong)
	if total < 150 {
		t.Errorf("only %d corpus cases", total)
	}
}
