package remote

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Target is where commands run: over ssh or through an exec prefix.
type Target struct {
	// URL is the target as given, for messages: with the values of
	// options and variables that look secret hidden (Redact).
	URL string
	// SSH: the destination ([user@]host), its port ("" for ssh's default)
	// and the workspace root there ("" for the login directory).
	SSH        bool
	Dest, Port string
	Root       string
	// Prefix runs a command in the sandbox (exec:PREFIX).
	Prefix []string
}

// Parse reads a target: ssh://[user@]host[:port][/path] or exec:PREFIX.
// In an ssh path, a leading /~/ means the login directory.
func Parse(raw string) (Target, error) {
	t, err := parse(raw)
	t.URL = Redact(raw)
	return t, err
}

func parse(raw string) (Target, error) {
	shown := Redact(raw)
	if rest, ok := strings.CutPrefix(raw, "exec:"); ok {
		prefix, err := SplitWords(rest)
		if err != nil {
			return Target{}, fmt.Errorf("remote %q: %v", shown, err)
		}
		if len(prefix) == 0 {
			return Target{}, fmt.Errorf("remote %q: exec: needs the command that runs a program in the sandbox, as in exec:docker exec -i CTR", shown)
		}
		return Target{URL: raw, Prefix: prefix}, nil
	}
	if !strings.HasPrefix(raw, "ssh://") {
		return Target{}, fmt.Errorf("remote %q: give ssh://[user@]host[:port]/path or exec:PREFIX", shown)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // not the URL again, password and all
		}
		return Target{}, fmt.Errorf("remote %q: %v", shown, err)
	}
	host := u.Hostname()
	switch {
	case host == "":
		return Target{}, fmt.Errorf("remote %q: no host", shown)
	case strings.HasPrefix(host, "-"):
		return Target{}, fmt.Errorf("remote %q: a host cannot start with -", shown)
	case u.RawQuery != "" || u.Fragment != "":
		return Target{}, fmt.Errorf("remote %q: no query or fragment, only ssh://[user@]host[:port]/path", shown)
	case u.User != nil && strings.HasPrefix(u.User.Username(), "-"):
		return Target{}, fmt.Errorf("remote %q: a user cannot start with -", shown)
	}
	if _, set := u.User.Password(); set {
		return Target{}, fmt.Errorf("remote %q: no password in the URL (ssh takes keys; BatchMode never prompts)", shown)
	}
	t := Target{URL: raw, SSH: true, Dest: host, Port: u.Port()}
	if u.User != nil {
		t.Dest = u.User.Username() + "@" + host
	}
	switch p := u.Path; {
	case p == "/~" || p == "/~/":
		t.Root = "."
	case strings.HasPrefix(p, "/~/"):
		t.Root = p[len("/~/"):]
	case p != "" && p != "/":
		t.Root = p
	case p == "/":
		t.Root = "/"
	}
	return t, nil
}

// SplitWords splits s into words as a POSIX shell does, without
// expanding anything: blanks separate words, 'single' and "double" quotes
// and a backslash keep what they quote in one word (an exec: prefix or
// WS_SSH_COMMAND = "ssh -F '/Users/me/My Drive/ssh_config'").
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // a word has begun (perhaps empty: '')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a ' is not closed")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += 1 + end
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`a " is not closed`)
			}
			in = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				w.WriteByte(s[i])
			}
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// secretWords are the parts of option and variable names whose values
// Redact hides.
var secretWords = []string{"token", "password", "passwd", "secret", "credential", "key", "auth"}

func secretName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Redact is a target as messages show it: the password of an ssh URL,
// and in an exec: prefix the values of options (--token=V, --token V) and
// variables (API_TOKEN=V, OPENAI_API_KEY=V) whose names look secret, become
// xxxxx. An agent's transcript or a log then does not keep them.
func Redact(raw string) string {
	rest, ok := strings.CutPrefix(raw, "exec:")
	if !ok {
		if u, err := url.Parse(raw); err == nil {
			if _, set := u.User.Password(); set {
				return u.Redacted()
			}
			return raw
		}
		return sshPassword().ReplaceAllString(raw, "${1}xxxxx@")
	}
	words := strings.Fields(rest)
	hid := false
	for i, w := range words {
		name, _, assign := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case assign && secretName(name):
			words[i] = w[:strings.Index(w, "=")+1] + "xxxxx"
			hid = true
		case strings.HasPrefix(w, "-") && !assign && secretName(name) && i+1 < len(words):
			words[i+1] = "xxxxx"
			hid = true
		}
	}
	if !hid {
		return raw
	}
	return "exec:" + strings.Join(words, " ")
}

// sshPassword finds the password of a URL that does not parse.
var sshPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(//[^/@:]*:)[^/@]*@`) })

// sshServe is the script that starts the server: ws from the PATH, or
// from ~/.local/bin where `ws remote install` puts it.
const sshServe = `PATH="$PATH:$HOME/.local/bin" exec ws __remote`

// connectTimeout is ssh's ConnectTimeout, in seconds.
const connectTimeout = "15"

// Command is the argv that runs script (a POSIX shell script) on the
// target, or, for script "", the ws server. ssh is the ssh command to use
// (nil: "ssh").
func (t Target) Command(ssh []string, script string, args ...string) []string {
	if !t.SSH {
		if script == "" {
			return append(append([]string{}, t.Prefix...), "ws", "__remote")
		}
		return append(append(append([]string{}, t.Prefix...), "sh", "-c", script, "sh"), args...)
	}
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	argv := append([]string{}, ssh...)
	// ConnectTimeout: a host that drops packets would hold the call for
	// the system's TCP timeout (about two minutes). ssh takes the first
	// value of an option, so one in WS_SSH_COMMAND wins.
	argv = append(argv, "-T", "-e", "none", "-o", "BatchMode=yes", "-o", "ConnectTimeout="+connectTimeout)
	if t.Port != "" {
		argv = append(argv, "-p", t.Port)
	}
	if script == "" {
		script = sshServe
	}
	return append(argv, "--", t.Dest, shLine(script, args...))
}

// shLine is the command line that runs script under sh with args, as ssh
// hands it to the remote user's login shell, which may be csh or fish:
// every word is in single quotes, and a script of several lines (csh
// cannot quote a newline) or with a backslash (fish takes \\ in quotes
// as one) crosses spelt in printf %b escapes, which sh turns back into the
// script.
func shLine(script string, args ...string) string {
	line := "sh -c "
	if strings.ContainsAny(script, "\n\\") {
		spelt := strings.NewReplacer(`\`, `\0134`, "\n", `\n`).Replace(script)
		line += shellQuote(`s=$1; shift; eval "$(printf %b "$s")"`) + " sh " + shellQuote(spelt)
	} else {
		line += shellQuote(script) + " sh"
	}
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	return line
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
