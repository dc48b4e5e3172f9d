package landlock

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ABI is the Landlock ABI version of the running kernel; an error wrapping
// ErrUnavailable when it has none (too old, or Landlock not enabled at
// boot: see /sys/kernel/security/lsm).
func ABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("%w (%v)", ErrUnavailable, errno)
	}
	return int(v), nil
}

// Access rights, by the ABI that brought them.
const (
	fsABI1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// What a rule on a file (not a directory) may grant.
	fsFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE
	netTCP = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
)

// handledFS is every filesystem right the ABI can restrict, device ioctls
// aside (ABI 5): terminals need them, and writes are what is confined.
func handledFS(abi int) uint64 {
	h := uint64(fsABI1)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return h
}

// Restrict confines the calling thread, and every program it executes
// from now on, to p: reading and running anything, writing below
// p.ReadWrite only, and no TCP when p.DenyNetwork and the ABI allows it.
// The caller must stay on its thread (runtime.LockOSThread) until it
// executes the command: Landlock confines one thread, not the process.
func Restrict(p Policy) error {
	abi, err := ABI()
	if err != nil {
		return err
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handledFS(abi)}
	if p.DenyNetwork && abi >= NetworkABI {
		attr.Handled_access_net = netTCP
	}
	if abi >= 6 {
		// Signals to processes outside the sandbox are refused (the
		// command cannot stop ws or other commands), and so are
		// connections to abstract Unix sockets when the network is.
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL
		if p.DenyNetwork {
			attr.Scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		}
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	if err := addRule(ruleset, "/", fsRead&attr.Handled_access_fs); err != nil {
		return err
	}
	for _, path := range p.ReadWrite {
		if err := addRule(ruleset, path, attr.Handled_access_fs); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", errno)
	}
	return nil
}

// addRule grants access below path (on path alone when it is not a
// directory); a path that does not exist is skipped. path is a real path
// (ws resolved it): a symlink on its way now was made since, by a
// confined command that would be granted what it points to, and is
// refused, not followed.
func addRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		// No openat2: a seccomp filter that does not know it refuses it
		// with ENOSYS, or with EPERM (older container runtimes). The final
		// name at least is not followed.
		fd, err = unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if errors.Is(err, unix.ELOOP) {
		return fmt.Errorf("landlock rule for %s: a symlink was made on its way since ws checked it; not followed", path)
	}
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %v", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %v", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fsFile
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %v", path, errno)
	}
	return nil
}

// Exec is the launcher: it reads the policy and the command from args
// (see Policy.Args), confines itself and executes the command with env.
// It returns only when that fails.
func Exec(args, env []string) error {
	p, argv, err := ParseArgs(args)
	if err != nil {
		return err
	}
	runtime.LockOSThread() // the thread that is confined is the one that executes
	if err := Restrict(p); err != nil {
		return err
	}
	dropEscapeCaps()
	path := argv[0]
	if err := syscall.Exec(path, argv, env); err != nil {
		return &os.PathError{Op: "exec", Path: path, Err: err}
	}
	return nil
}

// escapeCaps are the capabilities with which root gets past Landlock's
// write rules: CAP_SYS_ADMIN pushes input into a terminal outside the
// sandbox (TIOCSTI on an inherited one), CAP_MKNOD makes a node of the
// host's disk in the workspace to write it raw, CAP_SYS_MODULE and
// CAP_SYS_RAWIO run code in or poke the kernel, CAP_SYS_BOOT reboots.
var escapeCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_MKNOD, unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_BOOT}

// dropEscapeCaps takes escapeCaps out of the bounding set, so that the
// command executed next has none of them, root or not. Without
// CAP_SETPCAP (not root) the drop is refused, and there is nothing to drop.
func dropEscapeCaps() {
	for _, c := range escapeCaps {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
	}
}
