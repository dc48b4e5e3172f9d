package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
)

// An isolated command may write some places (the workspace, readWritePaths,
// the temp directory under Landlock). Everything ws itself trusts and runs
// unconfined must lie outside them, or a confined command could rewrite it
// and escape on the next ws call: the config file (it could switch the
// isolation off or add a hook), the programs of hooks, callbacks, upload
// filters and the embedder command, and the state directory (its records
// drive ws kill and ws ps, and a background process's spec names its
// callbacks). checkConfinement refuses such a setup when the workspace is
// opened.

// writable is one place an isolated command may write, and why.
type writable struct {
	path string // as configured; confinementOf resolves symlinks
	what string
}

// confinement is what an isolated command may write: below any of rw,
// except below any of ro (bubblewrap mounts readOnlyPaths last).
type confinement struct {
	isolation string
	rw, ro    []writable
}

// landlockWritable lists the paths a command may write under Landlock,
// with what each is; landlockArgv grants exactly these.
func (w *Workspace) landlockWritable() []writable {
	var out []writable
	if !w.readOnly {
		out = append(out, writable{w.fs.RealBase(), "the workspace"})
		_, reals := w.fs.AllowedRoots()
		for _, r := range reals {
			out = append(out, writable{r, "filesystem.allowedPaths"})
		}
	}
	for _, d := range w.cfg.Sandbox.NativeSandbox.ReadWritePaths {
		out = append(out, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
	}
	out = append(out, writable{w.commandTempDir(), "the commands' temp directory: TMPDIR, else /tmp"},
		writable{"/dev/shm", "/dev/shm"})
	for _, d := range landlockDevices {
		out = append(out, writable{d, d})
	}
	return out
}

// confinementOf is what commands may write under the configured isolation.
func (w *Workspace) confinementOf() confinement {
	c := confinement{isolation: w.cfg.Sandbox.Isolation}
	switch c.isolation {
	case "landlock":
		c.rw = w.landlockWritable()
	case "bwrap":
		// bwrapArgs: the roots (unless read-only) and readWritePaths are
		// bound writable; /tmp and /dev are the sandbox's own.
		if !w.readOnly {
			c.rw = append(c.rw, writable{w.fs.RealBase(), "the workspace"})
			_, reals := w.fs.AllowedRoots()
			for _, r := range reals {
				c.rw = append(c.rw, writable{r, "filesystem.allowedPaths"})
			}
		}
		ns := w.cfg.Sandbox.NativeSandbox
		for _, d := range ns.ReadWritePaths {
			c.rw = append(c.rw, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
		}
		for _, d := range ns.ReadOnlyPaths {
			c.ro = append(c.ro, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readOnlyPaths"})
		}
	}
	for _, l := range [][]writable{c.rw, c.ro} {
		for i := range l {
			l[i].path = fsroot.RealpathPartial(l[i].path)
		}
	}
	return c
}

// under reports the writable place that holds the entry p (a path whose
// parent is a real directory). An entry strictly below a writable directory
// can be replaced; the final path may also be the writable place itself
// (a file given in readWritePaths).
func (c confinement) under(p string, final bool) (writable, bool) {
	for _, r := range c.ro {
		if _, in := fsroot.Within(r.path, p); in {
			return writable{}, false
		}
	}
	for _, w := range c.rw {
		if rel, in := fsroot.Within(w.path, p); in && (final || rel != ".") {
			return w, true
		}
	}
	return writable{}, false
}

// exposed reports whether a command could replace the file at p (absolute)
// or any symlink on the way to it: every directory entry met while
// resolving p is checked, so a link outside pointing inside, or a link
// inside pointing outside, both count.
func (c confinement) exposed(p string) (string, writable, bool) {
	entries := resolutionEntries(p)
	for i, e := range entries {
		if w, ok := c.under(e, i == len(entries)-1); ok {
			return e, w, true
		}
	}
	return "", writable{}, false
}

// resolutionEntries lists the directory entries met while resolving the
// absolute path p, each spelled with its parent's symlinks resolved: every
// symlink followed, and last the file itself (or the first missing part).
func resolutionEntries(p string) []string {
	var out []string
	cur := "/"
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			if err != nil || len(rest) == 0 {
				return append(out, filepath.Join(append([]string{next}, rest...)...))
			}
			cur = next
			continue
		}
		out = append(out, next)
		link, err := os.Readlink(next)
		if hops++; err != nil || hops > 40 {
			return out
		}
		if filepath.IsAbs(link) {
			cur = "/"
		}
		rest = append(strings.Split(link, "/"), rest...)
	}
	return append(out, cur)
}

// checkConfinement refuses, when commands run isolated, a config file,
// helper program or state directory a command could rewrite. configFile
// is the config's path as given ("": none).
func (w *Workspace) checkConfinement(configFile string) error {
	iso := w.cfg.Sandbox.Isolation
	if w.cfg.Sandbox.Disabled || (iso != "landlock" && iso != "bwrap") {
		return nil
	}
	c := w.confinementOf()
	fail := func(key, subject, entry string, in writable, risk, fix string) error {
		return errs.Config(&config.Error{File: configFile, Key: key, Msg: fmt.Sprintf(
			"%s %s lies in %s (%s), which commands may write under sandbox.isolation %q: %s; %s",
			subject, entry, in.path, in.what, iso, risk, fix)})
	}
	const runs = "a command could rewrite it, and ws would then run it unconfined"
	if configFile != "" {
		abs, err := filepath.Abs(configFile)
		if err == nil {
			if e, in, ok := c.exposed(abs); ok {
				return fail("", "the config file", e, in,
					"a command could rewrite it (switch the isolation off, add a hook) and the next ws call would follow it unconfined", "keep the config file outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	if w.stateDir != "" {
		if e, in, ok := c.exposed(w.stateDir); ok {
			return fail("", "the state directory", e, in,
				"a command could forge its records, and ws would act on them unconfined (ws kill signals the processes they name)", "give --state-dir (WS_STATE_DIR) outside the workspace, readWritePaths and the temp directory")
		}
	}
	hostEnv := w.hostEnv
	cmds := []struct {
		key  string
		argv []string
		env  []string
	}{
		{"tools.hooks.beforeToolCall", w.cfg.Tools.BeforeToolCall, hostEnv},
		{"tools.hooks.afterToolCall", w.cfg.Tools.AfterToolCall, hostEnv},
		{"sandbox.backgroundProcesses.onStdout", w.cfg.Sandbox.BackgroundProcesses.OnStdout, nil},
		{"sandbox.backgroundProcesses.onStderr", w.cfg.Sandbox.BackgroundProcesses.OnStderr, nil},
		{"sandbox.backgroundProcesses.onExit", w.cfg.Sandbox.BackgroundProcesses.OnExit, nil},
		{"upload.filterCommand", w.cfg.Upload.FilterCommand, hostEnv},
		{"upload.maxSizeCommand", w.cfg.Upload.MaxSizeCommand, hostEnv},
	}
	if w.cfg.Embedder != nil {
		cmds = append(cmds, struct {
			key  string
			argv []string
			env  []string
		}{"embedder.command", w.cfg.Embedder.Command, hostEnv})
	}
	for _, cmd := range cmds {
		if len(cmd.argv) == 0 {
			continue
		}
		env := cmd.env
		if env == nil { // callbacks run with a command's environment
			env = w.commandEnv(nil)
		}
		for _, p := range commandFiles(cmd.argv, w.base, env) {
			if p.dir {
				if in, ok := c.under(p.path, true); ok {
					return fail(cmd.key, "the PATH directory searched for \""+p.name+"\",", p.path, in,
						"a command could place a program of that name there, and ws would then run it unconfined",
						"give the program's full path, or take that directory out of PATH")
				}
				continue
			}
			if e, in, ok := c.exposed(p.path); ok {
				return fail(cmd.key, "the program", e, in, runs, "move it (and the files it runs) outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	return nil
}

// A commandFile is a file a helper command runs: a program or script path,
// or (dir) a PATH directory searched, before the program was found, for a
// bare program name; a command could place a program there.
type commandFile struct {
	path, name string
	dir        bool
}

// commandFiles lists the files argv runs, as far as the words tell: the
// program, and the script an interpreter is given. A /bin/sh -c string is
// split into its simple commands, and each one's program is taken. Words
// with expansions ($, `, globs) cannot be resolved and are skipped.
func commandFiles(argv []string, dir string, env []string) []commandFile {
	var words [][]string
	if len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
		words = append([][]string{{"/bin/sh"}}, shellCommands(argv[2])...)
	} else {
		words = [][]string{argv}
	}
	var out []commandFile
	for _, ws := range words {
		for _, name := range programWords(ws) {
			out = append(out, lookFile(name, dir, env)...)
		}
	}
	return out
}

// shellBuiltins run in the shell itself, so no file is looked up for them.
var shellBuiltins = map[string]bool{
	":": true, "[": true, "alias": true, "bg": true, "break": true, "cd": true, "continue": true, "echo": true,
	"eval": true, "exit": true, "export": true, "false": true, "fg": true, "getopts": true, "hash": true,
	"jobs": true, "kill": true, "local": true, "printf": true, "pwd": true, "read": true, "readonly": true,
	"return": true, "set": true, "shift": true, "test": true, "times": true, "trap": true, "true": true,
	"type": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true, "while": true,
	"until": true, "case": true, "esac": true, "!": true, "{": true, "}": true,
}

// wrappers run the program named by their first non-option word.
var wrappers = map[string]bool{"exec": true, "command": true, "env": true, "nohup": true, "nice": true, "time": true, "sudo": true}

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
	for i < len(ws) && leadingKeywords[ws[i]] {
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
	case wrappers[prog]:
		j := i + 1
		for j < len(ws) && (strings.HasPrefix(ws[j], "-") || isAssignment(ws[j])) {
			j++
		}
		return programWords(ws[j:])
	case shellBuiltins[prog]:
		return nil
	}
	out := []string{prog}
	base := filepath.Base(prog)
	for _, in := range interpreters {
		if base == in || (strings.HasPrefix(base, in) && strings.Trim(base[len(in):], "0123456789.") == "") {
			for k, a := range ws[i+1:] {
				if a == "-c" && shells[base] && i+2+k < len(ws) {
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
var leadingKeywords = map[string]bool{"!": true, "{": true, "if": true, "then": true, "else": true, "elif": true, "do": true, "while": true, "until": true}

// shells take their code inline after -c; it is scanned like a hook string.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

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
func lookFile(name, dir string, env []string) []commandFile {
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
		return []commandFile{{path: name}}
	}
	var out []commandFile
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		out = append(out, commandFile{path: fsroot.RealpathPartial(d), name: name, dir: true})
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return append(out, commandFile{path: p})
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
