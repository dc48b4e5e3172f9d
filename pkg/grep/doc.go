// Package grep is ws's search engine: the matcher (Go RE2, with an
// ECMAScript engine for lookaround and backreferences, literal and
// required-substring shortcuts, a lazy DFA that finds the lines that
// match, and for the ECMAScript engine an RE2 superset of its pattern
// that finds the lines it need run on), whole-buffer scanning for the first match
// of each line, binary detection by content, and Search, which walks a
// tree through the workspace's path chokepoint and scans files in
// parallel, reporting them in walk order; and RGStream, which sends the
// files as ripgrep's --json messages (ws grep --jsonl). The grep tool's
// text (Mastra's layout) is made by pkg/workspace from its Result.
package grep
