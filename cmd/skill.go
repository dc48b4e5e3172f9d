package cmd

import (
	"context"
	"path"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newSkillCmd(app *App, runF func(context.Context, *workspace.SkillRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Skill, runF, &cobra.Command{
		Use:   "skill NAME",
		Short: "Activate a skill: print its instructions and list its files",
		Long: `Print a skill's instructions (its SKILL.md without the front matter),
then its references, scripts and assets. NAME is the skill's name or its
path (skills/pdf-tools, skills/pdf-tools/ and ./skills/pdf-tools alike).
Skills are found in the config's "skills" paths.`,
		Example: `  ws skill pdf-tools
  ws skill search 'extract text'
  ws skill read pdf-tools references/flags.md --start-line 10 --end-line 20`,
		Args: exactArgs(1, "one skill NAME"),
	}, nil, func(cmd *cobra.Command, args []string, req *workspace.SkillRequest) error {
		req.Name = skillArg(args[0])
		return nil
	})
}

// skillArg is a skill NAME as the shell gave it: a path spelt with a
// trailing slash (tab completion adds one) or a leading ./ names the same
// skill as the clean path, which the tool matches exactly (as Mastra's
// does, and ws call still does). A name, which has no slash, is kept.
func skillArg(arg string) string {
	if !strings.Contains(arg, "/") {
		return arg
	}
	return path.Clean(arg)
}

func newSkillSearchCmd(app *App, runF func(context.Context, *workspace.SkillSearchRequest) error) *cobra.Command {
	return toolCmd(app, workspace.SkillSearch, runF, &cobra.Command{
		Use:   "search QUERY…",
		Short: "Search the skills' instructions and references",
		Long: `Search the skills' instructions and reference files (BM25 when the config
enables bm25, else a case-insensitive substring match). Several QUERY words
are one query, as if quoted.`,
		Example: `  ws skill search layout
  ws skill search brand colors --skill brand-guidelines --top-k 3`,
		Args: queryArgs,
	}, func(b *binder, req *workspace.SkillSearchRequest) {
		b.f.StringArrayVar(&req.SkillNames, "skill", nil, "search only this skill (repeatable; skillNames)")
		b.countIn(&req.TopK, "top-k", "", b.atLeast("topK", 1), "5", "at most N results (topK)")
	}, func(cmd *cobra.Command, args []string, req *workspace.SkillSearchRequest) error {
		req.Query = strings.Join(args, " ")
		return nil
	})
}

func newSkillReadCmd(app *App, runF func(context.Context, *workspace.SkillReadRequest) error) *cobra.Command {
	return toolCmd(app, workspace.SkillRead, runF, &cobra.Command{
		Use:   "read NAME PATH",
		Short: "Read a file of a skill (references/, scripts/, assets/)",
		Example: `  ws skill read pdf-tools references/flags.md
  ws skill read pdf-tools references/flags.md --start-line 2 --end-line 3`,
		Args: exactArgs(2, "a skill NAME and a PATH"),
	}, func(b *binder, req *workspace.SkillReadRequest) {
		b.countIn(&req.StartLine, "start-line", "", b.atLeast("startLine", 1), "1", "first line to show (1-based; startLine)")
		b.countIn(&req.EndLine, "end-line", "", b.atLeast("endLine", 1), "", "last line to show, inclusive (endLine)")
	}, func(cmd *cobra.Command, args []string, req *workspace.SkillReadRequest) error {
		req.SkillName, req.Path = skillArg(args[0]), args[1]
		return nil
	})
}
