// Package embed turns texts into vectors for ws's vector and hybrid search.
//
// Two kinds of embedder exist, as users run them: an HTTP endpoint that
// speaks the OpenAI-compatible embeddings API (OpenAI itself, Ollama,
// llama.cpp's server, vLLM, LM Studio, LocalAI all serve it), and a
// command that reads {"texts": [...]} on stdin and prints
// {"embeddings": [[...], ...]} on stdout.
//
// Both send the texts in batches of at most MaxBatch, give each request a
// timeout, and check what comes back: one vector per text, all of one
// dimension, every number finite. The HTTP form retries a request that got
// 429 or a 5xx answer, waiting longer each time (or as Retry-After says).
// Errors are one line that names the endpoint or the command, never the
// API key.
package embed
