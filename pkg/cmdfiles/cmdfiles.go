// Package cmdfiles finds the files a command line runs: its program
// (through PATH for a bare name, with the directories searched on the
// way), the script an interpreter is given, and in a /bin/sh -c string
// the program of each simple command. ws uses it to refuse, when
// commands run isolated, a helper program a confined command could
// rewrite. It reads words, not the shell's full grammar: what it cannot
// resolve (expansions, globs) it leaves out.
package cmdfiles

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wstools/ws/pkg/internal/fsroot"
)

// A File is a file a command runs: a program or script path, or (Dir) a
// PATH directory searched, before the program was found, for the bare
// program name Name; a command could place a program there.
type File struct {
	Path, Name string
	Dir        bool
}

// Of lists the files argv runs, as far as the words tell: the program,
// and the script an interpreter is given. A /bin/sh -c string is split
// into its simple commands, and each one's program is taken. Words with
// expansions ($, `, globs) cannot be resolved and are skipped. Relative
// names resolve from dir, bare ones through env's PATH.
func Of(argv []string, dir string, env []string) []File {
	var words [][]string
	if script, ok := shScript(argv); ok {
		words = append([][]string{{"/bin/sh"}}, shellCommands(script)...)
	} else {
		words = [][]string{argv}
	}
	var out []File
	for _, ws := range words {
		for _, name := range programWords(ws) {
			out = append(out, lookFile(name, dir, env)...)
		}
	}
	return out
}

// shScript is the script of a /bin/sh -c argv, with or without the "--"
// that ends sh's options.
func shScript(argv []string) (string, bool) {
	if len(argv) == 4 && argv[2] == "--" {
		argv = []string{argv[0], argv[1], argv[3]}
	}
	if len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
		return argv[2], true
	}
	return "", false
}

// shellBuiltins run in the shell itself, so no file is looked up for them.
// The word lists here are slices, not maps: a slice literal is data in the
// binary, where a map literal is built by code on every start of ws.
var shellBuiltins = []string{
	":", "[", "alias", "bg", "break", "cd", "continue", "echo",
	"eval", "exit", "export", "false", "fg", "getopts", "hash",
	"jobs", "kill", "local", "printf", "pwd", "read", "readonly",
	"return", "set", "shift", "test", "times", "trap", "true",
	"type", "ulimit", "umask", "unalias", "unset", "wait",
	"if", "then", "else", "elif", "fi", "do", "done", "while",
	"until", "case", "esac", "!", "{", "}",
}

// wrappers run the program named by their first non-option word.
var wrappers = []string{"exec", "command", "env", "nohup", "nice", "time", "sudo"}

// interpreters run the script named by their first non-option word,
// unless an option gives the code inline (-c, -e) or names a module (-m).
var interpreters = []string{"sh", "bash", "dash", "zsh", "ksh", "ash", "python", "node", "nodejs", "perl", "ruby", "php", "lua", "tclsh", "Rscript", "deno", "bun"}

// programWords are the words of one simple command that name files it
// runs: its program (past variable assignments and wrappers), and the
// script given to an interpreter or to `.`/`source`.
func programWords(ws []string) []string {
	i := 0
	for i < len(ws) && isAssignment(ws[i]) {
		i++
	}
	for i < len(ws) && slices.Contains(leadingKeywords, ws[i]) {
		i++
	}
	if i >= len(ws) {
		return nil
	}
	prog := ws[i]
	switch {
	case prog == "." || prog == "source":
		if i+1 < len(ws) {
			return []string{"./" + strings.TrimPrefix(ws[i+1], "./")}
		}
		return nil
	case slices.Contains(wrappers, prog):
		j := i + 1
		for j < len(ws) && (strings.HasPrefix(ws[j], "-") || isAssignment(ws[j])) {
			j++
		}
		return programWords(ws[j:])
	case slices.Contains(shellBuiltins, prog):
		return nil
	}
	out := []string{prog}
	base := filepath.Base(prog)
	for _, in := range interpreters {
		if base == in || (strings.HasPrefix(base, in) && strings.Trim(base[len(in):], "0123456789.") == "") {
			for k, a := range ws[i+1:] {
				if a == "-c" && slices.Contains(shells, base) && i+2+k < len(ws) {
					for _, sub := range shellCommands(ws[i+2+k]) {
						out = append(out, programWords(sub)...)
					}
					break
				}
				if a == "-c" || a == "-e" || a == "-E" || a == "--eval" || a == "-m" || a == "-p" || a == "--print" {
					break
				}
				if strings.HasPrefix(a, "-") {
					continue
				}
				out = append(out, "./"+strings.TrimPrefix(a, "./"))
				break
			}
			break
		}
	}
	return out
}

// leadingKeywords may come before a command's program.
var leadingKeywords = []string{"!", "{", "if", "then", "else", "elif", "do", "while", "until"}

// shells take their code inline after -c; it is scanned like a hook string.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "ash"}

func isAssignment(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	if !ok || k == "" {
		return false
	}
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// lookFile resolves a program word as the shell would: a word with a slash
// from dir (a leading ~/ from HOME), a bare name through PATH. A word
// whose name an interpreter takes ("./x" from programWords) names a file
// relative to dir. An absolute word starting "./" keeps its absolute form.
func lookFile(name, dir string, env []string) []File {
	if name == "" || strings.ContainsAny(name, "$`*?[") {
		return nil
	}
	home, path := "", ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		} else if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if rest, ok := strings.CutPrefix(name, "./"); ok && (filepath.IsAbs(rest) || strings.HasPrefix(rest, "~/")) {
		name = rest
	}
	if strings.HasPrefix(name, "~/") {
		if home == "" {
			return nil
		}
		name = filepath.Join(home, name[2:])
	}
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return []File{{Path: name}}
	}
	var out []File
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		out = append(out, File{Path: fsroot.RealpathPartial(d), Name: name, Dir: true})
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return append(out, File{Path: p})
		}
	}
	return out
}

// shellCommands splits a /bin/sh -c string into the words of its simple
// commands, as far as a quick scan can: quotes and backslashes are
// honoured, ; & | ( ) and newlines end a command, and a redirection's
// target is dropped. A word with an unquoted $, backquote or glob keeps
// that character, so lookFile skips it.
func shellCommands(s string) [][]string {
	var cmds [][]string
	var cur []string
	var word strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if inWord {
			if redirect {
				redirect = false
			} else {
				cur = append(cur, word.String())
			}
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				} else if s[i] == '$' || s[i] == '`' {
					word.WriteByte('$') // an expansion: not resolvable
				}
				word.WriteByte(s[i])
			}
		case ch == '\\':
			if i+1 < len(s) && s[i+1] != '\n' {
				word.WriteByte(s[i+1])
				inWord = true
			}
			i++
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			endCmd()
		case ch == ';' || ch == '&' || ch == '|' || ch == '(' || ch == ')' || ch == '\n':
			endCmd()
		case ch == '<' || ch == '>':
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset() // 2>: the descriptor number
				inWord = false
			}
			endWord()
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '&' || s[i+1] == '|') {
				i++
			}
			redirect = true
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endCmd()
	return cmds
}
