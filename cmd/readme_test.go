package cmd

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/workspace"
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

// TestReadmeConfigsLoad loads every config of README.md's json blocks (all
// but the MCP client settings) as --config would: a key renamed or a value
// of the wrong type in an example fails here.
func TestReadmeConfigsLoad(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile("(?s)\n```json\n(.*?)\n```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], `"mcpServers"`) {
			continue
		}
		n++
		if _, err := config.Parse([]byte(m[1]), workspace.ConfigKeys()); err != nil {
			t.Errorf("README.md config example does not load: %v\n%s", err, m[1])
		}
	}
	if n < 3 {
		t.Fatalf("found only %d config examples in README.md", n)
	}
}
