// Package mcp serves a workspace's tools over the Model Context Protocol:
// every offered tool under its exposed name, with the same JSON Schema and
// the same result text as `ws call`. A failed call is an isError result
// carrying the message; media read by read_file is an image content
// (images) or an embedded resource (PDFs).
//
// The protocol is JSON-RPC 2.0, written here rather than taken from the
// official SDK, whose dependencies (gob, oauth2, a JSON Schema library, a
// JSON encoder, a URI template parser) cost every ws run, even `ws stat`,
// about 0.65 ms of start-up and 6 MB of binary. Handler answers the
// messages of one session and knows nothing of the transport; Serve is
// the stdio transport around it (newline-delimited messages) and
// ServeHTTP the streamable HTTP one (net/http; one Handler per session).
// Only the tests link the SDK: its Go client, and the TypeScript one from
// npm, check the server.
package mcp
