package cmd

import (
	"testing"

	"github.com/spf13/cobra"
)

// helpRun finds the run of short flags whose -h set the help flag, as
// pflag read the line: a flag that takes a value takes the rest of its
// run, and -h or --help alone is help asked for.
func TestHelpRun(t *testing.T) {
	tests := []struct {
		args      []string
		run, rest string
	}{
		{[]string{"-hi", "x"}, "-hi", "i"},
		{[]string{"-ih", "x"}, "-ih", "i"},
		{[]string{"-ihv"}, "-ihv", "iv"},
		{[]string{"-hh"}, "-hh", ""},
		{[]string{"-gh", "-hi"}, "-hi", "i"}, // -g's value is "h"
		{[]string{"-h"}, "", ""},
		{[]string{"-hi", "--help"}, "", ""},
		{[]string{"-hi", "--help=true"}, "", ""},
		{[]string{"--", "-hi"}, "", ""},
	}
	for _, tt := range tests {
		c := &cobra.Command{Use: "grep", Run: func(*cobra.Command, []string) {}}
		c.Flags().BoolP("ignore-case", "i", false, "")
		c.Flags().BoolP("invert", "v", false, "")
		c.Flags().StringP("glob", "g", "", "")
		c.InitDefaultHelpFlag()
		_ = c.Flags().Parse(tt.args)
		if run, rest := helpRun(c, tt.args); run != tt.run || rest != tt.rest {
			t.Errorf("helpRun(%q) = %q, %q; want %q, %q", tt.args, run, rest, tt.run, tt.rest)
		}
	}
	c := &cobra.Command{Use: "ls"}
	c.InitDefaultHelpFlag()
	if run, _ := helpRun(c, []string{"help", "ls"}); run != "" {
		t.Errorf("ws help ls: %q, want no run (help not asked by a flag)", run)
	}
}
