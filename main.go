// Command ws gives AI agents and shell scripts a workspace: files, search,
// shell commands and background processes, one subcommand per tool.
package main

import (
	"os"

	"github.com/wstools/ws/cmd"
)

func main() { os.Exit(cmd.Main()) }
