package procstate

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// BootID identifies the current boot (start times restart at each boot).
func BootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Running reports whether the record's process is still the live one
// (never a kept foreground run's: it was reaped before it was filed, and
// its start time only names it).
func (r *Record) Running() bool { return !r.Foreground && Same(r.PID, r.StartTime, r.BootID) }

// Stopped reports whether the record's process is alive and stopped by a
// signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) or a tracer: it runs again
// only when continued.
func (r *Record) Stopped() bool {
	st, err := readStat(strconv.Itoa(r.PID))
	return err == nil && (st.state == 'T' || st.state == 't') && r.Running()
}

// SupervisorRunning reports whether the record's supervisor is still alive.
func (r *Record) SupervisorRunning() bool {
	return Same(r.SupervisorPID, r.SupervisorStart, r.BootID)
}

// statFields are the fields of /proc/<pid>/stat that ws uses.
type statFields struct {
	state byte   // R, S, D, Z, X …
	ppid  int    // parent
	pgrp  int    // process group
	sid   int    // session
	start uint64 // start time, clock ticks after boot
}

// zombie reports a process that has exited (dead, not reaped yet, or being
// torn down): it runs nothing and cannot be signalled into doing anything.
func (f statFields) zombie() bool { return f.state == 'Z' || f.state == 'X' }

// readStat reads /proc/<pid>/stat; pid is given as its decimal text.
func readStat(pid string) (statFields, error) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return statFields{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields after it start after the last ')'.
	bad := func() error { return errors.New("unexpected /proc/" + pid + "/stat") }
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return statFields{}, bad()
	}
	// f[0] is field 3 (state), f[1] the ppid, f[2] the pgrp, f[3] the
	// session, f[19] field 22.
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return statFields{}, bad()
	}
	var st statFields
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	st.sid, _ = strconv.Atoi(f[3])
	st.start, err = strconv.ParseUint(f[19], 10, 64)
	return st, err
}

// eachProcess calls fn with the stat fields of every process in /proc
// (processes that vanish while it looks are skipped). It returns false when
// /proc cannot be read.
func eachProcess(fn func(pid int, st statFields)) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(e.Name()); err == nil {
			fn(pid, st)
		}
	}
	return true
}

// StartTime reads a process's start time (field 22 of /proc/<pid>/stat, in
// clock ticks after boot). Together with the pid and the boot id it names
// one process for good: a reused pid has a later start time.
func StartTime(pid int) (uint64, error) {
	st, err := readStat(strconv.Itoa(pid))
	return st.start, err
}

// Same reports whether pid is alive and is the process that started at
// start in this boot. A zombie (dead, not yet reaped) is not alive.
func Same(pid int, start uint64, bootID string) bool {
	if pid <= 0 {
		return false
	}
	if bootID != "" && bootID != BootID() {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, err := readStat(strconv.Itoa(pid))
	return err == nil && st.start == start && !st.zombie()
}

// GroupAlive reports whether a live process is left in the group pgid.
// Zombies (dead, waiting for a parent to reap them) do not count: a parent
// such as a container's init may take its time, and they run nothing. The
// common answer, an empty group, costs one kill(2); only a group with
// members is looked up in /proc.
func GroupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	alive := false
	if !eachProcess(func(_ int, st statFields) { alive = alive || st.pgrp == pgid && !st.zombie() }) {
		return true
	}
	return alive
}

// HasLiveDescendants reports whether a process below pid has not exited
// (zombies waiting to be reaped do not count).
func HasLiveDescendants(pid int) bool { return len(liveDescendants(pid)) > 0 }

// killSession kills, with SIGKILL, every process group in the session
// led by sid and every group a descendant of sid is in: whatever a session
// leader started, even in groups of their own, or re-parented to init.
func killSession(sid int) {
	groups := map[int]bool{sid: true}
	eachProcess(func(_ int, st statFields) {
		if st.sid == sid {
			groups[st.pgrp] = true
		}
	})
	for _, p := range liveDescendants(sid) {
		if st, err := readStat(strconv.Itoa(p)); err == nil {
			groups[st.pgrp] = true
		}
	}
	for g := range groups {
		if g > 1 {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
	}
}

// liveDescendants are the processes below pid that have not exited
// (zombies waiting to be reaped are left out), found by the parent links
// in /proc.
func liveDescendants(pid int) []int { return liveDescendantsOutside(pid, 0) }

// liveDescendantsOutside is liveDescendants without the members of the
// process group pgid (0: none left out).
func liveDescendantsOutside(pid, pgid int) []int {
	children := map[int][]int{}
	skip := map[int]bool{}
	eachProcess(func(p int, st statFields) {
		children[st.ppid] = append(children[st.ppid], p)
		skip[p] = st.zombie() || pgid != 0 && st.pgrp == pgid
	})
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !skip[c] {
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}

// closeInherited closes the file descriptors above stderr that this
// process inherited (those without close-on-exec, other than keep) and
// marks keep close-on-exec. A supervisor or dispatcher runs for as long as
// its command does, in a session of its own: it must not hold the pipes
// and files of whoever started it (a caller waiting for end of file on
// one would wait for the command), nor hand them, or its own report pipe,
// to the commands it starts. Descriptors Go opened are close-on-exec
// already and are left alone.
func closeInherited(keep ...uintptr) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	kept := func(fd int) bool {
		for _, k := range keep {
			if int(k) == fd {
				return true
			}
		}
		return false
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if kept(fd) {
			syscall.CloseOnExec(fd)
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err == nil && flags&unix.FD_CLOEXEC == 0 {
			_ = unix.Close(fd)
		}
	}
}

// continueIfStopped sends SIGCONT to pid if a signal stopped it (see
// ContinueStopped).
func continueIfStopped(pid int) {
	if st, err := readStat(strconv.Itoa(pid)); err == nil && st.state == 'T' {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}
