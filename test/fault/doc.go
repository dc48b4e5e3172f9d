// Package fault holds ws's fault suite: writers killed with SIGKILL in the
// middle of a write, concurrent editors of one file, and a symlink swapped
// while files are read and written through it. It is not part of the
// default test run; run it with the fault build tag:
//
//	go test -tags fault ./test/fault                           # 50 iterations
//	WS_FAULT_ITERATIONS=1000 go test -tags fault -v ./test/fault
//
// Each test logs its figures (partial files, lost updates, escapes).
package fault
