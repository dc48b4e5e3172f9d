// Package js holds the JavaScript string and number semantics that ws needs
// to reproduce Mastra's texts byte for byte, in one place: lengths and cuts
// in UTF-16 code units, the \s whitespace class and String.prototype.trim,
// Number.prototype.toString, JSON.stringify's quoting of strings, and the
// WHATWG UTF-8 decoder.
package js
