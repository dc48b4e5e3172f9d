// Package schema derives a tool's parameters from its request struct, once:
// the draft-07 JSON Schema that `ws tools` and `ws mcp` hand to models, and
// the validation of JSON arguments with the messages of Mastra's zod
// schemas (same wording, same order, the same retry that forgives nulls and
// JSON-in-strings). It models JSON values the way JavaScript sees them, so
// the "Provided arguments" echo is JSON.stringify's, byte for byte.
//
// The struct tags it reads are listed at the top of schema.go.
package schema
