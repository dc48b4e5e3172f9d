// Package remote runs ws commands in a workspace on another machine or in a
// sandbox, through a program that is already there to run commands: the
// system ssh (ssh://[user@]host[:port]/path) or any prefix that runs a
// command inside a sandbox (exec:kubectl exec -i POD --, exec:docker exec -i
// CTR).
//
// The local ws starts `ws __remote` on the other side and speaks a small
// framed protocol with it over the transport's stdin and stderr; stdout is
// passed through untouched. The client sends a header (the command line,
// what the local streams are, the local files the command reads), then the
// bytes of those files, then stdin when the remote command first reads it,
// and the signals the local ws receives. The server sends the command's
// stderr, the request for stdin and the exit status. So a remote command
// sees the same arguments, stdin, stdout, stderr and exit status as a local
// one, local input files are streamed and never copied anywhere, and the
// local stdin is only read when the command reads it (as locally).
package remote
