package landlock

import (
	"errors"
	"fmt"
)

// Policy is what a confined command may change.
type Policy struct {
	// ReadWrite are the directories (or files) the command may write,
	// create and remove things below. Missing ones are skipped.
	ReadWrite []string
	// DenyNetwork refuses TCP bind and connect (Landlock ABI 4 and later;
	// Landlock does not cover UDP) and, from ABI 6, connections to abstract
	// Unix sockets made outside the sandbox.
	DenyNetwork bool
}

// NetworkABI is the first Landlock ABI that can deny network access.
const NetworkABI = 4

// ErrUnavailable is returned (wrapped) when the kernel has no Landlock.
var ErrUnavailable = errors.New("this kernel offers no Landlock")

// Args encodes p for the launcher, before the "--" that ends them.
func (p Policy) Args() []string {
	var args []string
	for _, d := range p.ReadWrite {
		args = append(args, "--rw", d)
	}
	if p.DenyNetwork {
		args = append(args, "--deny-net")
	}
	return append(args, "--")
}

// ParseArgs reads what Args wrote and returns the policy and the command
// (everything after the "--").
func ParseArgs(args []string) (Policy, []string, error) {
	var p Policy
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--rw":
			if i+1 >= len(args) {
				return p, nil, errors.New("--rw needs a path")
			}
			p.ReadWrite = append(p.ReadWrite, args[i+1])
			i++
		case "--deny-net":
			p.DenyNetwork = true
		case "--":
			if i+1 >= len(args) {
				return p, nil, errors.New("no command after --")
			}
			return p, args[i+1:], nil
		default:
			return p, nil, fmt.Errorf("unknown argument %q", args[i])
		}
	}
	return p, nil, errors.New("no -- before the command")
}
