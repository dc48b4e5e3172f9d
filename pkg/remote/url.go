package remote

import (
	"fmt"
	"net/url"
	"strings"
)

// Target is where commands run: over ssh or through an exec prefix.
type Target struct {
	// URL is the target as given.
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
	if rest, ok := strings.CutPrefix(raw, "exec:"); ok {
		prefix := strings.Fields(rest)
		if len(prefix) == 0 {
			return Target{}, fmt.Errorf("remote %q: exec: needs the command that runs a program in the sandbox, as in exec:docker exec -i CTR", raw)
		}
		return Target{URL: raw, Prefix: prefix}, nil
	}
	if !strings.HasPrefix(raw, "ssh://") {
		return Target{}, fmt.Errorf("remote %q: give ssh://[user@]host[:port]/path or exec:PREFIX", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("remote %q: %v", raw, err)
	}
	host := u.Hostname()
	switch {
	case host == "":
		return Target{}, fmt.Errorf("remote %q: no host", raw)
	case strings.HasPrefix(host, "-"):
		return Target{}, fmt.Errorf("remote %q: a host cannot start with -", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return Target{}, fmt.Errorf("remote %q: no query or fragment, only ssh://[user@]host[:port]/path", raw)
	case u.User != nil && strings.HasPrefix(u.User.Username(), "-"):
		return Target{}, fmt.Errorf("remote %q: a user cannot start with -", raw)
	}
	if _, set := u.User.Password(); set {
		return Target{}, fmt.Errorf("remote %q: no password in the URL (ssh takes keys; BatchMode never prompts)", raw)
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

// sshServe is the remote shell command that starts the server: ws from the
// PATH, or from ~/.local/bin where `ws remote install` puts it.
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
	line := sshServe
	if script != "" {
		line = shellQuote(script)
		line = "sh -c " + line + " sh"
		for _, a := range args {
			line += " " + shellQuote(a)
		}
	}
	return append(argv, "--", t.Dest, line)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
