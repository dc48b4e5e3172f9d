package cmd

import (
	"bytes"
	"fmt"
)

// Completions renders cobra's completion scripts for ws, by shell: bash,
// zsh, fish and powershell. The repository keeps them in completions/.
func Completions() (map[string][]byte, error) {
	root := newRootCmd(newApp(nil))
	out := map[string][]byte{}
	gens := map[string]func(*bytes.Buffer) error{
		"ws.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"ws.zsh":  func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"ws.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
		"ws.ps1":  func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) },
	}
	for name, gen := range gens {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b.Bytes()
	}
	return out, nil
}
