// Package runner runs the helper commands ws waits for — the config's
// hooks, upload's filterCommand and maxSizeCommand, and an embedder
// command — the one careful way: in a process group of their own, input
// from a file rather than a pipe, output bounded, the whole group killed
// when the context ends or the timeout passes, and no waiting for
// background children that the command left behind holding its output.
// StartError words a program that could not be started.
package runner
