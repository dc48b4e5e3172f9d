// Package cmd wires ws's subcommands: it parses flags into tool requests,
// calls pkg/workspace, and hands results to pkg/render. Main is the only
// place that maps errors to exit statuses.
package cmd
