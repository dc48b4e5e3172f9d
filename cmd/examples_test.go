package cmd

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// shellWords splits an example command line as sh would, roughly: quotes
// group, and the operators | ; && || < > ( ) end a word and are words of
// their own. Comments (" #") end the line.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !in:
			flush()
			return words
		case strings.IndexByte("|;&<>()", c) >= 0:
			flush()
			words = append(words, string(c))
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return words
}

// checkExample checks each ws command in one example line: the first word
// after ws's flags is a command, and every flag before "--" or the end of the
// command is one that command (or ws itself) has, given a value when it
// takes one.
func checkExample(t *testing.T, root *cobra.Command, where, line string) int {
	t.Helper()
	words := shellWords(line)
	n := 0
	for i := 0; i < len(words); i++ {
		if words[i] != "ws" || (i > 0 && !isOp(words[i-1]) && words[i-1] != "then" && words[i-1] != "if" && !strings.Contains(words[i-1], "=")) {
			continue
		}
		n++
		cmd := root
		for i++; i < len(words) && !isOp(words[i]); i++ {
			w := words[i]
			if w == "--" {
				break
			}
			if w == "-" || !strings.HasPrefix(w, "-") {
				if sub := child(cmd, w); sub != nil {
					cmd = sub
				} else if cmd == root {
					t.Errorf("%s: %q: ws has no command %s", where, line, w)
					break
				}
				continue // an argument
			}
			f, hasValue := lookupFlag(cmd, w)
			if f == nil {
				t.Errorf("%s: %q: ws %s has no flag %s", where, line, strings.TrimPrefix(cmd.CommandPath(), "ws "), w)
				continue
			}
			if f.Value.Type() != "bool" && !hasValue {
				i++ // its value
			}
		}
	}
	return n
}

// isOp reports whether w is one of the operators shellWords splits off.
func isOp(w string) bool { return len(w) == 1 && strings.Contains("|;&<>()", w) }

func child(c *cobra.Command, name string) *cobra.Command {
	for _, sub := range c.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// lookupFlag finds --name, --name=value, -x or -xVALUE among the flags
// of c and its parents.
func lookupFlag(c *cobra.Command, w string) (*pflag.Flag, bool) {
	if name, ok := strings.CutPrefix(w, "--"); ok {
		name, _, hasValue := strings.Cut(name, "=")
		for p := c; p != nil; p = p.Parent() {
			if f := p.Flags().Lookup(name); f != nil {
				return f, hasValue
			}
			if f := p.PersistentFlags().Lookup(name); f != nil {
				return f, hasValue
			}
		}
		return nil, false
	}
	short := w[1:2]
	for p := c; p != nil; p = p.Parent() {
		for _, fs := range []*pflag.FlagSet{p.Flags(), p.PersistentFlags()} {
			if f := fs.ShorthandLookup(short); f != nil {
				return f, len(w) > 2
			}
		}
	}
	return nil, false
}

// TestExamplesNameRealFlags runs over every Example of ws's help and every
// "$ ws …" line of README.md: each names commands that exist and flags
// they have, so an example cannot tell a newcomer to type a flag that
// was renamed or never existed.
func TestExamplesNameRealFlags(t *testing.T) {
	root := newRootCmd(newApp(nil))
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			n += checkExample(t, root, c.CommandPath()+" --help", strings.TrimSpace(line))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(line, "$ "); ok {
			n += checkExample(t, root, "README.md:"+strconv.Itoa(i+1), rest)
		}
	}
	t.Logf("%d example commands checked", n)
	if n < 100 {
		t.Fatalf("checked only %d example commands; the scan is broken", n)
	}
}
