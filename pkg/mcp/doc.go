// Package mcp serves a workspace's tools over the Model Context Protocol,
// built on the official Go SDK: every offered tool under its exposed name,
// with the same JSON Schema and the same result text as `ws call`. A
// failed call is an isError result carrying the message; media read by
// read_file is an image content (images) or an embedded resource (PDFs).
package mcp
