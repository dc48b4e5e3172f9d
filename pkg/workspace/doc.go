// Package workspace holds all of ws's tool behaviour: the path chokepoint
// (Resolve), the filesystem tools (read, write, edit, delete, stat, mkdir),
// the read tracker and write locks kept in the state directory, and the
// tool registry used by `ws call` and `ws tools`.
//
// Each tool is a method from a typed request to a typed result. Results carry
// the exact text Mastra's tool gives the model (Text) and structured data for
// JSON output. Failures are *errs.Error values with a stable Code.
package workspace
