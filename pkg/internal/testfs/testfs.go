// Package testfs makes the files and directories tests work on, failing
// the test on any error: the helpers every package's tests wrote again.
package testfs

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Write makes the file at path with content (mode 0644), replacing it.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Mkdir makes each directory with its missing parents (mode 0755).
func Mkdir(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// SmallFS mounts a tmpfs of size (as mount(8) takes it: "256k") on dir,
// for a test that fills its file system, and unmounts it when the test
// ends. Only root may mount one: elsewhere the test is skipped.
func SmallFS(t testing.TB, dir, size string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("no tmpfs of %s to fill: %v", size, err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
}

// DeepChain makes dir/top, then a chain of depth directories named d
// below it, each made and opened relative to the one above (so no path
// is longer than a name: the chain may be deeper than PATH_MAX allows),
// with a file f<i> holding "<i>\n" at every level i that every divides
// (every 0: none), and a file leaf holding "leaf\n" at the bottom.
func DeepChain(t testing.TB, dir, top string, depth, every int) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	must(os.Mkdir(dir+"/"+top, 0o755))
	fd, err := unix.Open(dir+"/"+top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(err)
	file := func(name, content string) {
		f, err := unix.Openat(fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		must(err)
		_, err = unix.Write(f, []byte(content))
		unix.Close(f)
		must(err)
	}
	for i := 0; i < depth; i++ {
		if every > 0 && i%every == 0 {
			file("f"+strconv.Itoa(i), strconv.Itoa(i)+"\n")
		}
		must(unix.Mkdirat(fd, "d", 0o755))
		next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		must(err)
		fd = next
	}
	file("leaf", "leaf\n")
	unix.Close(fd)
}

// ChainAt reads back what DeepChain made at dir/top: its depth and the
// files at each level (level: name and content), by descriptors; depth
// -1 when dir/top is not there.
func ChainAt(t testing.TB, dir, top string) (depth int, files map[int]string) {
	t.Helper()
	fd, err := unix.Open(dir+"/"+top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		return -1, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	files = map[int]string{}
	for depth = 0; ; depth++ {
		f := os.NewFile(uintptr(fd), "chain")
		names, err := f.Readdirnames(-1)
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		down := false
		for _, n := range names {
			if n == "d" {
				down = true
				continue
			}
			buf := make([]byte, 64)
			cf, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				f.Close()
				t.Fatal(err)
			}
			k, _ := unix.Read(cf, buf)
			unix.Close(cf)
			files[depth] += n + ":" + string(buf[:max(k, 0)])
		}
		if !down {
			f.Close()
			return depth, files
		}
		next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
}

// LimitFDs lowers the number of descriptors this process may have open
// (its soft RLIMIT_NOFILE) to n for the rest of the test, which must not
// run in parallel with others.
func LimitFDs(t testing.TB, n uint64) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = min(n, old.Max)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}
