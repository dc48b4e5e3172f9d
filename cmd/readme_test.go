package cmd

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestReadmeShowsEveryCommand requires README.md to show each command of
// 'ws --help' (and each of their subcommands, as 'ws skill search') run in
// an example: a "$ ws …" line of a code block naming it.
func TestReadmeShowsEveryCommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// ws (after a pipe, a variable or a <( too), its global flags (--root DIR,
	// --remote 'exec:…'), then the command and its subcommand
	run := regexp.MustCompile(`(?m)^\$ (?:.*?[\s|(])?ws((?: --?[a-z-]+(?:[ =](?:'[^']*'|[^\s-]\S*))?)*)((?: [a-z][a-z-]*)+)`)
	shown := map[string]bool{}
	for _, m := range run.FindAllStringSubmatch(string(readme), -1) {
		words := strings.Fields(m[2])
		for i := range words {
			shown[strings.Join(words[:i+1], " ")] = true
		}
	}
	var walk func(c *cobra.Command, prefix string)
	walk = func(c *cobra.Command, prefix string) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			name := prefix + sub.Name()
			if !shown[name] {
				t.Errorf("README.md has no example running 'ws %s' (a \"$ ws %s …\" line)", name, name)
			}
			if name != "completion" { // cobra's, one per shell
				walk(sub, name+" ")
			}
		}
	}
	walk(newRootCmd(newApp(nil)), "")
}
