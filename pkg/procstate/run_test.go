package procstate

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRunForegroundSession: a command runs in a process group of its own,
// in ws's session; with NoTerminal (a confined command) in a session of
// its own as well, so it has no controlling terminal to push input into.
func TestRunForegroundSession(t *testing.T) {
	// The shell prints its pid, its process group and its session
	// (fields 1, 5 and 6 of /proc/self/stat; sh's name has no spaces).
	argv := []string{"/bin/sh", "-c", "read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo $pid $pgrp $sid"}
	own, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	wsSession := strings.Fields(string(own))[5]
	for _, tc := range []struct {
		name       string
		noTerminal bool
		newSession bool
	}{
		{name: "default", noTerminal: false, newSession: false},
		{name: "NoTerminal", noTerminal: true, newSession: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunForeground(context.Background(), Foreground{Argv: argv, Dir: "/", NoTerminal: tc.noTerminal})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v %+v", err, res)
			}
			f := strings.Fields(string(res.Stdout))
			if len(f) != 3 {
				t.Fatalf("output %q", res.Stdout)
			}
			pid, _ := strconv.Atoi(f[0])
			if f[1] != f[0] {
				t.Errorf("process group %s, want the shell's own (%d)", f[1], pid)
			}
			if tc.newSession && f[2] != f[0] {
				t.Errorf("session %s, want the shell's own (%d)", f[2], pid)
			}
			if !tc.newSession && f[2] != wsSession {
				t.Errorf("session %s, want ws's (%s)", f[2], wsSession)
			}
		})
	}
}
