// Package listing is the engine of ls (Mastra's list_files): it walks a
// directory through the workspace's path chokepoint (pkg/internal/fsroot),
// leaves out what the filters say (.git, hidden names, .gitignore rules,
// excludes, directories only, extension and patterns, in Mastra's order),
// builds the tree of what is shown, directories first at each level, and
// writes it as Mastra's text: one line per entry, indented with tabs, a
// summary of the counts, and within the token budget whole lines with a
// notice that says how to narrow the listing.
//
// Hints speak the interface in use: [Options.Flags] names ws ls's flags,
// otherwise the tool's JSON parameters are named. The tool's result type
// and its coded errors are pkg/workspace's; [List] returns the walk's own
// error when the directory cannot be listed.
package listing
