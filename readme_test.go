package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// readmeCmp is a script line comparing ws's output with a readme/* file.
var readmeCmp = regexp.MustCompile(`^cmp (?:stdout|stderr) \S*readme/(\S+)$`)

// readmeRun is a script line running ws: exec, ! exec or exitcode N.
// A wrapper script may come first: exec sh pid.sh ws ….
var readmeRun = regexp.MustCompile(`^(?:!\s*)?(?:exec|exitcode \d+) (?:sh \S+\.sh )?(ws .*)$`)

// TestReadmeExamples keeps README.md's central examples true. The scripts
// testdata/script/readme_*.txtar compare what ws prints with their readme/*
// files; here each of them must be in README.md word for word, right under
// the command that printed it (the script's "ws …" line, or the "# $ …"
// comment above it for an example with a pipe) and followed by the next
// "$ " line or the end of the code block, so the README shows nothing more
// and nothing less.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "script", "readme_*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, script := range scripts {
		total += checkReadmeScript(t, readme, script)
	}
	if total < 20 {
		t.Fatalf("only %d README examples checked", total)
	}
}

// checkReadmeScript checks the readme/* files of one script against
// README.md and returns how many it checked.
func checkReadmeScript(t *testing.T, readme []byte, script string) int {
	ar, err := txtar.ParseFile(script)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "readme/"); ok {
			files[name] = f.Data
		}
	}
	checked := map[string]bool{}
	comment, run := "", "" // since the last cmp
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if c, ok := strings.CutPrefix(line, "# $ "); ok {
			comment = "$ " + c
			continue
		}
		if m := readmeRun.FindStringSubmatch(line); m != nil {
			run = "$ " + m[1]
			continue
		}
		m := readmeCmp.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		command := comment
		if command == "" {
			command = run
		}
		comment, run = "", ""
		out, ok := files[m[1]]
		if !ok {
			t.Fatalf("%s:%d: no readme/%s in the archive", script, i+1, m[1])
		}
		if command == "" {
			t.Fatalf("%s:%d: no ws command before %s", script, i+1, line)
		}
		if !inReadme(readme, command, out) {
			t.Errorf("README.md does not show\n%s\n%s(the output of %s's readme/%s, then the next \"$ \" line or the end of the block)", command, out, filepath.Base(script), m[1])
		}
		checked[m[1]] = true
	}
	for name := range files {
		if !checked[name] {
			t.Errorf("%s: readme/%s is compared with nothing in the script", script, name)
		}
	}
	return len(checked)
}

// inReadme reports whether README shows command and, under it, out and
// nothing more before the next command or the end of the code block.
func inReadme(readme []byte, command string, out []byte) bool {
	block := append([]byte("\n"+command+"\n"), out...)
	for rest := readme; ; {
		i := bytes.Index(rest, block)
		if i < 0 {
			return false
		}
		after := rest[i+len(block):]
		if bytes.HasPrefix(after, []byte("$ ")) || bytes.HasPrefix(after, []byte("```")) {
			return true
		}
		rest = rest[i+1:]
	}
}
