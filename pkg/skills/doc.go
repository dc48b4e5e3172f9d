// Package skills discovers and serves SKILL.md skills the way Mastra's
// workspace does (skills/workspace-skills.ts, skills/schemas.ts and
// skills/tools.ts in @mastra/core 1.71.0): discovery from the configured
// paths and globs, gray-matter front matter with the Agent Skills
// validation rules, same-name precedence (local > managed > external), and
// the texts of the skill, skill_search and skill_read tools.
//
// It reads files only through the small [FS] interface, so the workspace
// can hand it its path chokepoint. Problems that skip one skill (bad front
// matter, a name that does not match its directory) do not fail discovery:
// they are collected as warnings naming the SKILL.md file.
package skills
