package cmd

import (
	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newSkillCmd(app *App) *cobra.Command {
	var req workspace.SkillRequest
	cmd := &cobra.Command{
		Use:   "skill NAME",
		Short: "Activate a skill: print its instructions and list its files",
		Long: `Print a skill's instructions (its SKILL.md without the front matter),
then its references, scripts and assets. NAME is the skill's name or its
path. Skills are found in the config's "skills" paths.`,
		Example: `  ws skill pdf-tools
  ws skill search 'extract text'
  ws skill read pdf-tools references/flags.md --start-line 10 --end-line 20`,
		Args: exactArgs(1, "one skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Name = args[0]
			return app.runTool(cmd.Context(), workspace.Skill, req)
		},
	}
	cmd.AddCommand(newSkillSearchCmd(app), newSkillReadCmd(app))
	return cmd
}

func newSkillSearchCmd(app *App) *cobra.Command {
	var req workspace.SkillSearchRequest
	var topK float64
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the skills' instructions and references",
		Example: `  ws skill search layout
  ws skill search 'brand colors' --skill brand-guidelines --top-k 3`,
		Args: exactArgs(1, "one QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Query = args[0]
			if cmd.Flags().Changed("top-k") {
				req.TopK = &topK
			}
			return app.runTool(cmd.Context(), workspace.SkillSearch, req)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&req.SkillNames, "skill", nil, "search only this skill (repeatable; skillNames)")
	f.Float64Var(&topK, "top-k", 5, "at most N results (topK)")
	return cmd
}

func newSkillReadCmd(app *App) *cobra.Command {
	var req workspace.SkillReadRequest
	var start, end float64
	cmd := &cobra.Command{
		Use:   "read NAME PATH",
		Short: "Read a file of a skill (references/, scripts/, assets/)",
		Example: `  ws skill read pdf-tools references/flags.md
  ws skill read pdf-tools references/flags.md --start-line 2 --end-line 3`,
		Args: exactArgs(2, "a skill NAME and a PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.SkillName, req.Path = args[0], args[1]
			f := cmd.Flags()
			if f.Changed("start-line") {
				req.StartLine = &start
			}
			if f.Changed("end-line") {
				req.EndLine = &end
			}
			return app.runTool(cmd.Context(), workspace.SkillRead, req)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&start, "start-line", 1, "first line to show (1-based; startLine)")
	f.Float64Var(&end, "end-line", 0, "last line to show, inclusive (endLine)")
	return cmd
}
