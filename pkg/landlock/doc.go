// Package landlock confines a command with Linux's Landlock LSM: it may
// read and run anything, write only below the directories it is given,
// and, where the kernel's Landlock ABI allows it (4 and later), neither
// bind nor connect TCP sockets. The confinement is taken by a small
// launcher (ws re-executing itself as `ws __landlock`) just before it
// executes the command, so it holds for the command and everything it
// starts, and never for the ws process that keeps running.
package landlock
