package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newRootCmd(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "ws",
		Short: "A workspace for agents and scripts: files, search, shell commands",
		Long: `ws gives AI agents and shell scripts a workspace: read, write and edit files,
list and search trees, run commands. Each subcommand is one tool, with the
same parameters and output as Mastra's workspace tools; 'ws call' runs any
tool from JSON arguments and 'ws tools' describes them for function calling.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
	}
	app.bindGlobalFlags(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usagef(err.Error()) })
	root.AddCommand(
		newReadCmd(app),
		newWriteCmd(app),
		newEditCmd(app),
		newDeleteCmd(app),
		newStatCmd(app),
		newMkdirCmd(app),
		newLsCmd(app),
		newGrepCmd(app),
		newSearchCmd(app),
		newIndexCmd(app),
		newExecCmd(app),
		newPSOutputCmd(app),
		newKillCmd(app),
		newPSCmd(app),
		newSkillCmd(app),
		newSuperviseCmd(),
		newCallCmd(app),
		newToolsCmd(app),
		newUploadCmd(app),
		newInstructionsCmd(app),
		newMCPCmd(app),
	)
	for _, c := range root.Commands() {
		if id, ok := commandTool[c.Name()]; ok {
			c.Annotations = map[string]string{"tool": id}
		}
	}
	return root
}

// commandTool names the tool each subcommand runs.
var commandTool = map[string]string{
	"read": workspace.ReadFile, "write": workspace.WriteFile, "edit": workspace.EditFile, "delete": workspace.Delete,
	"stat": workspace.FileStat, "mkdir": workspace.Mkdir, "ls": workspace.ListFiles, "grep": workspace.Grep,
	"exec": workspace.ExecuteCommand, "ps-output": workspace.GetProcessOutput, "kill": workspace.KillProcess,
	"search": workspace.Search, "index": workspace.Index, "skill": workspace.Skill,
}

// version is set at build time with -ldflags "-X github.com/wstools/ws/cmd.version=…".
var version = "dev"

// exactArgs is cobra.ExactArgs with a usage error and our wording.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef(fmt.Sprintf("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args)))
		}
		return nil
	}
}
