// Package sandbox decides how a command runs in a workspace's sandbox:
// the environment it gets (the host's allowed variables, sandbox.env, the
// call's own), its working directory (inside the workspace when it is
// contained), and the argv that starts it: /bin/sh -c alone, wrapped in
// bubblewrap (sandbox.isolation "bwrap"), or started by ws's Landlock
// launcher ("landlock", with the policy of package landlock). It also
// holds the confinement model, what an isolated command may write, and
// Check, which refuses a setup where such a command could rewrite what ws
// itself trusts and runs unconfined.
//
// A [Sandbox] is built from the values the workspace already has: its
// sandbox config, its roots ([Files], which pkg/internal/fsroot's FS
// satisfies), whether the filesystem is read-only, the host environment
// and the launcher's command line. It runs nothing itself: pkg/procstate
// runs the argv it gives. Its failures are typed ([UnavailableError],
// [DirError], [ExposedError]); pkg/workspace gives them their codes. The
// errors of the path chokepoint come back as they are.
package sandbox
