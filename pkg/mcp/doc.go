// Package mcp serves a workspace's tools over the Model Context Protocol:
// every offered tool under its exposed name, with the same JSON Schema and
// the same result text as `ws call`. A failed call is an isError result
// carrying the message; media read by read_file is an image content
// (images) or an embedded resource (PDFs).
//
// The protocol is JSON-RPC 2.0, written here rather than taken from the
// official SDK, whose dependencies (net/http, oauth2, gob, a JSON Schema
// library) cost every ws run about a millisecond of start-up. Handler
// answers one message and knows nothing of the transport; Serve is the
// stdio transport around it (newline-delimited messages).
package mcp
