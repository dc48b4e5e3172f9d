package cmdfiles

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestShellCommands(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{"echo hi", [][]string{{"echo", "hi"}}},
		{"./policy.sh a 'b c'", [][]string{{"./policy.sh", "a", "b c"}}},
		{"A=1 ./x > /tmp/log 2>&1; cd d && ../y|z", [][]string{{"A=1", "./x"}, {"cd", "d"}, {"../y"}, {"z"}}},
		{`"$HOME/h.sh" x # ./not-run`, [][]string{{"$$HOME/h.sh", "x"}}},
		{"a\\ b <in", [][]string{{"a b"}}},
		{"(./sub)\n./next", [][]string{{"./sub"}, {"./next"}}},
	} {
		if got := shellCommands(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("shellCommands(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestProgramWords(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"echo", "hi"}, nil},
		{[]string{"A=1", "./x", "y"}, []string{"./x"}},
		{[]string{"sh", "-c", "echo hi"}, []string{"sh"}},
		{[]string{"sh", "-c", "./in.sh; echo"}, []string{"sh", "./in.sh"}},
		{[]string{"bash", "-x", "hook.sh"}, []string{"bash", "./hook.sh"}},
		{[]string{"python3", "/opt/h.py"}, []string{"python3", ".//opt/h.py"}},
		{[]string{"python3.12", "-m", "mod"}, []string{"python3.12"}},
		{[]string{"node", "-e", "1"}, []string{"node"}},
		{[]string{"env", "-i", "X=1", "./p"}, []string{"./p"}},
		{[]string{".", "lib.sh"}, []string{"./lib.sh"}},
		{[]string{"if", "./check"}, []string{"./check"}},
		{[]string{"jq", "-r", ".x"}, []string{"jq"}},
	} {
		if got := programWords(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("programWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestOf: the program through PATH (each directory searched on the way,
// then the program found), a path from the working directory, the script
// an interpreter is given, ~/ from HOME, the programs of a sh -c string,
// and words with expansions left out.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	empty, bin := filepath.Join(dir, "empty"), filepath.Join(dir, "bin")
	for _, d := range []string{empty, bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + empty + ":" + bin, "HOME=/home/u"}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	for _, tc := range []struct {
		argv []string
		want []File
	}{
		{[]string{"tool", "-x"}, []File{{Path: real(empty), Name: "tool", Dir: true}, {Path: real(bin), Name: "tool", Dir: true}, {Path: filepath.Join(bin, "tool")}}},
		{[]string{"./run.sh"}, []File{{Path: filepath.Join(dir, "run.sh")}}},
		{[]string{"/usr/bin/python3", "hook.py"}, []File{{Path: "/usr/bin/python3"}, {Path: filepath.Join(dir, "hook.py")}}},
		{[]string{"~/h.sh"}, []File{{Path: "/home/u/h.sh"}}},
		{[]string{"/bin/sh", "-c", "./a; cd x && /opt/b | echo $X"}, []File{{Path: "/bin/sh"}, {Path: filepath.Join(dir, "a")}, {Path: "/opt/b"}}},
		{[]string{"/bin/sh", "-c", "--", "./a"}, []File{{Path: "/bin/sh"}, {Path: filepath.Join(dir, "a")}}},
		{[]string{"$HOME/x", "y"}, nil},
	} {
		if got := Of(tc.argv, dir, env); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Of(%q) = %+v, want %+v", tc.argv, got, tc.want)
		}
	}
}
