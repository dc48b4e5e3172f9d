package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

// hintName is one parameter a tool's notice names: its JSON name for call
// and mcp, its flag for the subcommand.
type hintName struct {
	param, flag string
	at          string // file:line of the notice
}

// hintNames finds the parameter names the workspace's notices are worded
// with: the literal arguments of Dialect.param and Dialect.setting calls.
func hintNames(t *testing.T) []hintName {
	t.Helper()
	files, err := filepath.Glob("../pkg/workspace/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []hintName
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "param" && sel.Sel.Name != "setting") || len(call.Args) < 2 {
				return true
			}
			name, ok1 := stringLit(call.Args[0])
			flag, ok2 := stringLit(call.Args[1])
			if !ok1 || !ok2 {
				t.Errorf("%s: %s called with a computed name; this test cannot check it", fset.Position(call.Pos()), sel.Sel.Name)
				return true
			}
			out = append(out, hintName{param: name, flag: flag, at: fset.Position(call.Pos()).String()})
			return true
		})
	}
	return out
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// TestHintNamesExist checks every parameter a notice tells the reader to
// set: some tool has it as a JSON parameter, and that tool's subcommand
// has the flag the CLI wording names. A renamed flag or parameter fails
// here instead of leaving a notice that points at nothing.
func TestHintNamesExist(t *testing.T) {
	hints := hintNames(t)
	if len(hints) < 3 {
		t.Fatalf("found only %d notices naming parameters; the scan is broken", len(hints))
	}
	root := newRootCmd(newApp(nil))
	for _, h := range hints {
		var owners []string
		found := false
		for _, s := range workspace.Tools() {
			if !slices.Contains(s.Params(), h.param) {
				continue
			}
			owners = append(owners, s.Command)
			if c := findCommand(root, s.Command); c != nil && c.Flags().Lookup(h.flag) != nil {
				found = true
				break
			}
		}
		switch {
		case found:
		case len(owners) == 0:
			t.Errorf("%s: no tool has the parameter %q", h.at, h.param)
		default:
			t.Errorf("%s: none of %v has the flag --%s for %q", h.at, owners, h.flag, h.param)
		}
	}
}

// findCommand resolves a tool's Command ("skill search", "edit --edits")
// to its cobra command.
func findCommand(root *cobra.Command, command string) *cobra.Command {
	var words []string
	for _, w := range strings.Fields(command) {
		if !strings.HasPrefix(w, "-") {
			words = append(words, w)
		}
	}
	c, rest, err := root.Find(words)
	if err != nil || len(rest) > 0 {
		return nil
	}
	return c
}
