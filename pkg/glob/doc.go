// Package glob is ws's one implementation of Mastra's glob semantics
// (glob.ts): what makes a string a glob, the static base a glob is walked
// from, and picomatch-style matching of slash-separated paths. Patterns of
// list_files, grep, autoIndexPaths and skills all go through it.
package glob
