package mcp

import "encoding/json"

// The MCP results ws sends, in the field order of the official Go SDK's
// types (which ws used before), so that their JSON is unchanged.

type initializeResult struct {
	Capabilities    serverCapabilities `json:"capabilities"`
	Instructions    string             `json:"instructions,omitempty"`
	ProtocolVersion string             `json:"protocolVersion"`
	ServerInfo      implementation     `json:"serverInfo"`
}

type serverCapabilities struct {
	Logging struct{}        `json:"logging"`
	Tools   toolsCapability `json:"tools"`
}

type toolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type tool struct {
	Annotations toolAnnotations `json:"annotations"`
	Description string          `json:"description,omitempty"`
	InputSchema json.Marshaler  `json:"inputSchema"`
	Name        string          `json:"name"`
}

type toolAnnotations struct {
	IdempotentHint bool `json:"idempotentHint"`
	ReadOnlyHint   bool `json:"readOnlyHint"`
}

type callToolResult struct {
	Content           []any           `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type textContent struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imageContent struct {
	Type     string `json:"type"` // "image"
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type embeddedResource struct {
	Type     string       `json:"type"` // "resource"
	Resource blobResource `json:"resource"`
}

type blobResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Blob     string `json:"blob"` // base64
}
