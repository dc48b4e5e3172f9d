// Package render prints tool results: in text mode the model text on stdout
// (and a failure as `ws: <message>` on stderr), in JSON mode one envelope
// object {ok, tool, output, error, data} on stdout whatever happened.
package render
