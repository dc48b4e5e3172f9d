package workspace

import (
	"context"
	"fmt"
)

// Dialect is the interface a call comes through. It decides how a tool's
// hints name its parameters: a model calling a tool (ws call, ws mcp) is
// told the JSON parameter names, in Mastra's words where Mastra has them;
// someone running a subcommand is told its flags.
type Dialect int

// The dialects.
const (
	JSONParams Dialect = iota // ws call, ws mcp
	CLIFlags                  // a subcommand
)

type dialectKey struct{}

// WithDialect returns a context for calls made through d.
func WithDialect(ctx context.Context, d Dialect) context.Context {
	return context.WithValue(ctx, dialectKey{}, d)
}

func dialectOf(ctx context.Context) Dialect {
	d, _ := ctx.Value(dialectKey{}).(Dialect)
	return d
}

// param names one parameter of a tool in d: its JSON name, or its flag.
func (d Dialect) param(name, flag string) string {
	if d == CLIFlags {
		return "--" + flag
	}
	return name
}

// setting names a parameter with a value: offset=262, or --offset 262
// (a boolean flag takes its value after =: --outputs=false).
func (d Dialect) setting(name, flag string, value any) string {
	if _, isBool := value.(bool); isBool && d == CLIFlags {
		return fmt.Sprintf("--%s=%v", flag, value)
	}
	if d == CLIFlags {
		return fmt.Sprintf("--%s %v", flag, value)
	}
	return fmt.Sprintf("%s=%v", name, value)
}

type remoteKey struct{}

// ServedRemotely returns a context for calls that a ws on another
// machine sent (ws __remote): a path in a hint is one of this machine's,
// which the caller cannot open as it is.
func ServedRemotely(ctx context.Context) context.Context {
	return context.WithValue(ctx, remoteKey{}, true)
}

func servedRemotely(ctx context.Context) bool { return ctx.Value(remoteKey{}) != nil }
