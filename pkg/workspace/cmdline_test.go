package workspace

import (
	"os/exec"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		// One word is a shell command, as it stands.
		{[]string{"npm ci && npm test | tail"}, "npm ci && npm test | tail"},
		{[]string{"echo $HOME"}, "echo $HOME"},
		// Several words are an argv: quoted where they need it.
		{[]string{"grep", "-r", "foo bar", "."}, "grep -r 'foo bar' ."},
		{[]string{"echo", "hi"}, "echo hi"},
		{[]string{"go", "test", "./...", "-run=TestX/a,b", "-count=1"}, "go test ./... -run=TestX/a,b -count=1"},
		{[]string{"sh", "-c", "echo $0", "x"}, "sh -c 'echo $0' x"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "*.go", "~", "#c", "a;b", "a|b", "$(x)", "`x`", "a\nb"}, "echo '*.go' '~' '#c' 'a;b' 'a|b' '$(x)' '`x`' 'a\nb'"},
		{[]string{"echo", "café", "user@host:/p", "50%", "+x"}, "echo café user@host:/p 50% +x"},
		{[]string{"printf", "\xe9"}, "printf '\xe9'"},
		// An assignment stays one, its value quoted after the "=".
		{[]string{"FOO=1", "make"}, "FOO=1 make"},
		{[]string{"FOO=a b", "BAR=", "make"}, "FOO='a b' BAR= make"},
		{[]string{"env", "X_1=it's", "cmd"}, `env X_1='it'\''s' cmd`},
		{[]string{"1X=a b", "--opt=a b", "=a b"}, "'1X=a b' '--opt=a b' '=a b'"},
		// A trailing | tail in a word is data, not a pipe.
		{[]string{"seq", "9", "| tail -3"}, "seq 9 '| tail -3'"},
	} {
		if got := CommandLine(tc.words); got != tc.want {
			t.Errorf("CommandLine(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestCommandLineArgv checks with /bin/sh itself that several words reach
// the program as they were given.
func TestCommandLineArgv(t *testing.T) {
	words := []string{"printf", `%s\n`, "foo bar", "it's", "", "*", "~", "$HOME", "a\nb", `back\slash`, "tab\there", "\xe9\xff", "FOO=a b", "!x", "{a,b}", "[x]", "a=b=c"}
	out, err := exec.Command("/bin/sh", "-c", CommandLine(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(words[2:], "\n") + "\n"; string(out) != want {
		t.Errorf("sh -c %q printed %q, want %q", CommandLine(words), out, want)
	}
	// A leading NAME=value is still an assignment.
	out, err = exec.Command("/bin/sh", "-c", CommandLine([]string{"FOO=a 'b'", "sh", "-c", `printf %s "$FOO"`})).Output()
	if err != nil || string(out) != "a 'b'" {
		t.Errorf("assignment: %q, %v; want %q", out, err, "a 'b'")
	}
}
