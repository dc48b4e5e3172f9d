package procstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// StartTime reads a process's start time (field 22 of /proc/<pid>/stat, in
// clock ticks after boot). Together with the pid and the boot id it names
// one process for good: a reused pid has a later start time.
func StartTime(pid int) (uint64, error) {
	start, _, err := procStat(pid)
	return start, err
}

// procStat reads a process's start time and state letter (R, S, Z …).
func procStat(pid int) (start uint64, state string, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", err
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return 0, "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	return start, fields[0], err
}

// BootID identifies the current boot (start times restart at each boot).
func BootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Same reports whether pid is alive and is the process that started at
// start in this boot. A zombie (dead, not yet reaped) is not alive: it runs
// nothing and cannot be signalled into doing anything.
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
	got, state, err := procStat(pid)
	return err == nil && got == start && state != "Z" && state != "X"
}

// Running reports whether the record's process is still the live one.
func (r *Record) Running() bool { return Same(r.PID, r.StartTime, r.BootID) }

// SupervisorRunning reports whether the record's supervisor is still alive.
func (r *Record) SupervisorRunning() bool {
	return Same(r.SupervisorPID, r.SupervisorStart, r.BootID)
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
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		// f[0] state, f[1] ppid, f[2] pgrp
		if len(f) > 2 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}
