package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/landlock"
)

// tree makes, in a new temporary directory, each entry: "d/" a directory,
// "l -> target" a symlink (a target starting with / is below the tree), any
// other an executable script; parents are made as needed. It returns the
// directory with symlinks resolved.
func tree(t *testing.T, entries ...string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	for _, e := range entries {
		if err != nil {
			break
		}
		name, target, link := strings.Cut(e, " -> ")
		p := filepath.Join(d, name)
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			break
		}
		switch {
		case link && strings.HasPrefix(target, "/"):
			err = os.Symlink(filepath.Join(d, target), p)
		case link:
			err = os.Symlink(target, p)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testFiles is the path chokepoint of a contained workspace at root.
func testFiles(t *testing.T, root, home string, allowed ...string) *fsroot.FS {
	t.Helper()
	f := fsroot.New(fsroot.Options{Base: root, Home: home, AllowedPaths: allowed, Contained: true})
	t.Cleanup(func() { f.Close() })
	return f
}

// TestEnv: a command gets the host's allowed variables (all of them with
// inheritEnv), a default PATH when the host has none, then sandbox.env in
// key order, then the call's own; a later value keeps the first one's place.
func TestEnv(t *testing.T) {
	host := []string{"PATH=/host/bin", "HOME=/home/u", "AWS_SECRET=s3cr3t", "TMPDIR=/t", "NOEQUALS", "TERM=xterm"}
	for _, tc := range []struct {
		name    string
		host    []string
		inherit bool
		env     map[string]string
		extra   []string
		want    []string
	}{
		{name: "allowed host variables only", host: host,
			want: []string{"PATH=/host/bin", "HOME=/home/u", "TMPDIR=/t", "TERM=xterm"}},
		{name: "inheritEnv", host: host, inherit: true,
			want: []string{"PATH=/host/bin", "HOME=/home/u", "AWS_SECRET=s3cr3t", "TMPDIR=/t", "TERM=xterm"}},
		{name: "no host PATH", host: []string{"HOME=/home/u"},
			want: []string{"HOME=/home/u", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}},
		{name: "no host environment",
			want: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}},
		{name: "sandbox.env in key order, overriding in place", host: host,
			env:  map[string]string{"Z": "1", "HOME": "/sb", "A": "2"},
			want: []string{"PATH=/host/bin", "HOME=/sb", "TMPDIR=/t", "TERM=xterm", "A=2", "Z=1"}},
		{name: "the call's variables last", host: host, env: map[string]string{"A": "2"},
			extra: []string{"A=3", "NEW=v", "PATH=/call", "EMPTY=", "A=4"},
			want:  []string{"PATH=/call", "HOME=/home/u", "TMPDIR=/t", "TERM=xterm", "A=4", "NEW=v", "EMPTY="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The environment is the same whatever the isolation, but
			// for a host TMPDIR that bwrap does not bind (TestBwrapTempDir).
			for _, iso := range []string{"none", "bwrap", "landlock"} {
				cfg := config.Default().Sandbox
				cfg.Isolation, cfg.InheritEnv, cfg.Env = iso, tc.inherit, tc.env
				s := New(Options{Config: cfg, HostEnv: tc.host})
				want := tc.want
				if iso == "bwrap" {
					want = slices.Clone(want)
					if i := slices.Index(want, "TMPDIR=/t"); i >= 0 {
						want[i] = "TMPDIR=/tmp"
					}
				}
				if got := s.Env(tc.extra); !reflect.DeepEqual(got, want) {
					t.Errorf("isolation %s: env %q, want %q", iso, got, want)
				}
			}
		})
	}
}

// TestBwrapTempDir: under bwrap a host TMPDIR that the sandbox does not
// bind writable becomes its private /tmp (mktemp failed: "No such file or
// directory"); one below the workspace, an allowed path or readWritePaths
// stays, and so does one the config or the call sets.
func TestBwrapTempDir(t *testing.T) {
	tmp := tree(t, "root/", "extra/", "cache/")
	root, extra, cache := filepath.Join(tmp, "root"), filepath.Join(tmp, "extra"), filepath.Join(tmp, "cache")
	for _, tc := range []struct {
		name, host string
		readOnly   bool
		env        map[string]string
		extra      []string
		want       string
	}{
		{name: "outside every bind", host: "/var/tmp/u", want: "/tmp"},
		{name: "below /tmp", host: "/tmp/u1", want: "/tmp"},
		{name: "relative", host: "tmp", want: "/tmp"},
		{name: "/tmp itself", host: "/tmp/", want: "/tmp/"},
		{name: "in the workspace", host: root + "/.tmp", want: root + "/.tmp"},
		{name: "in a read-only workspace", host: root + "/.tmp", readOnly: true, want: "/tmp"},
		{name: "in an allowed path", host: extra, want: extra},
		{name: "in readWritePaths", host: cache + "/t", want: cache + "/t"},
		{name: "beside the workspace", host: root + "-other", want: "/tmp"},
		{name: "set by the config", host: "/var/tmp/u", env: map[string]string{"TMPDIR": "/var/tmp/cfg"}, want: "/var/tmp/cfg"},
		{name: "set by the call", host: "/var/tmp/u", extra: []string{"TMPDIR=/var/tmp/call"}, want: "/var/tmp/call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default().Sandbox
			cfg.Isolation, cfg.Env = "bwrap", tc.env
			cfg.NativeSandbox.ReadWritePaths = []string{cache}
			s := New(Options{Config: cfg, Files: testFiles(t, root, tmp, extra), ReadOnly: tc.readOnly, HostEnv: []string{"TMPDIR=" + tc.host}})
			if got := s.Env(tc.extra); !slices.Contains(got, "TMPDIR="+tc.want) {
				t.Errorf("env %q, want TMPDIR=%s", got, tc.want)
			}
		})
	}
}

// TestDir: the working directory rules, in a contained workspace and in
// one that is not.
func TestDir(t *testing.T) {
	tmp := tree(t, "root/d/e/", "root/f", "root/ln -> d", "out/")
	root, out := filepath.Join(tmp, "root"), filepath.Join(tmp, "out")
	for _, tc := range []struct {
		name      string
		cwd       string
		contained bool
		want      string
		err       error // a DirError's cause; errChokepoint: another error
	}{
		{name: "default", cwd: "", contained: true, want: root},
		{name: "relative", cwd: "d/e", contained: true, want: filepath.Join(root, "d", "e")},
		{name: "absolute", cwd: filepath.Join(root, "d"), contained: true, want: filepath.Join(root, "d")},
		{name: "through a symlink, contained: its real path", cwd: "ln/e", contained: true, want: filepath.Join(root, "d", "e")},
		{name: "through a symlink, not contained: as given", cwd: "ln/e", want: filepath.Join(root, "ln", "e")},
		{name: "outside, contained", cwd: out, contained: true, err: errChokepoint},
		{name: "outside, not contained", cwd: "../out", want: out},
		{name: "a file", cwd: "f", contained: true, err: ErrNotDir},
		{name: "missing", cwd: "none", contained: true, err: fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fsroot.New(fsroot.Options{Base: root, Contained: tc.contained})
			defer f.Close()
			got, err := New(Options{Config: config.Default().Sandbox, Files: f}).Dir(tc.cwd)
			var d *DirError
			switch {
			case tc.err == nil:
				if err != nil || got != tc.want {
					t.Fatalf("dir %q, err %v; want %q", got, err, tc.want)
				}
			case tc.err == errChokepoint:
				if err == nil || errors.As(err, &d) {
					t.Fatalf("dir %q, err %v; want the chokepoint's error", got, err)
				}
			default:
				if !errors.As(err, &d) || d.Dir != tc.cwd || !errors.Is(err, tc.err) {
					t.Fatalf("dir %q, err %v; want a DirError for %q with %v", got, err, tc.cwd, tc.err)
				}
			}
		})
	}
}

var errChokepoint = errors.New("refused by the path chokepoint")

// bwrapSystem are the system mounts of every bwrap argv.
var bwrapSystem = []string{"--cap-drop", "ALL", "--die-with-parent", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
	"--ro-bind-try", "/usr", "/usr", "--ro-bind-try", "/lib", "/lib", "--ro-bind-try", "/lib64", "/lib64",
	"--ro-bind-try", "/lib32", "/lib32", "--ro-bind-try", "/bin", "/bin", "--ro-bind-try", "/sbin", "/sbin",
	"--ro-bind-try", "/etc/alternatives", "/etc/alternatives", "--ro-bind-try", "/etc/ssl", "/etc/ssl",
	"--ro-bind-try", "/etc/ca-certificates", "/etc/ca-certificates", "--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf",
	"--ro-bind-try", "/etc/hosts", "/etc/hosts", "--ro-bind-try", "/etc/passwd", "/etc/passwd",
	"--ro-bind-try", "/etc/group", "/etc/group", "--ro-bind-try", "/etc/nsswitch.conf", "/etc/nsswitch.conf",
	"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--ro-bind-try", "/etc/localtime", "/etc/localtime",
	"--ro-bind-try", "/opt", "/opt", "--ro-bind-try", "/snap", "/snap"}

// TestBwrapArgv: the bubblewrap command line for a root and a working
// directory, with each setting that changes it.
func TestBwrapArgv(t *testing.T) {
	saved := findBwrap
	findBwrap = func() (string, error) { return "/usr/bin/bwrap", nil }
	defer func() { findBwrap = saved }()
	tmp := tree(t, "root/sub/", "extra/", "extra-link -> /extra")
	root, home, extra := filepath.Join(tmp, "root"), filepath.Join(tmp, "home"), filepath.Join(tmp, "extra")
	ns := []string{"/usr/bin/bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-uts"}
	sh := []string{"--", "/bin/sh", "-c", "--", "make test"}
	for _, tc := range []struct {
		name     string
		edit     func(c *config.Sandbox)
		readOnly bool
		allowed  []string
		cwd      string
		ns       []string // the namespaces
		binds    []string // between the system mounts and --chdir
	}{
		{name: "defaults", cwd: root, ns: append(slices.Clone(ns), "--unshare-net"),
			binds: []string{"--bind", root, root, "--chdir", root}},
		{name: "a cwd below the root, cleaned", cwd: root + "/sub/", ns: append(slices.Clone(ns), "--unshare-net"),
			binds: []string{"--bind", root, root, "--chdir", filepath.Join(root, "sub")}},
		{name: "allowNetwork", cwd: root, ns: ns,
			edit:  func(c *config.Sandbox) { c.NativeSandbox.AllowNetwork = true },
			binds: []string{"--bind", root, root, "--chdir", root}},
		{name: "read-only", cwd: root, readOnly: true, ns: append(slices.Clone(ns), "--unshare-net"),
			binds: []string{"--ro-bind", root, root, "--chdir", root}},
		{name: "allowedPaths by their real path", cwd: root, allowed: []string{"../extra-link"}, ns: append(slices.Clone(ns), "--unshare-net"),
			binds: []string{"--bind", root, root, "--bind-try", extra, extra, "--chdir", root}},
		{name: "allowedPaths read-only", cwd: root, readOnly: true, allowed: []string{"../extra-link"}, ns: append(slices.Clone(ns), "--unshare-net"),
			binds: []string{"--ro-bind", root, root, "--ro-bind-try", extra, extra, "--chdir", root}},
		{name: "readWritePaths and readOnlyPaths, relative and ~", cwd: root, ns: append(slices.Clone(ns), "--unshare-net"),
			edit: func(c *config.Sandbox) {
				c.NativeSandbox.ReadWritePaths = []string{"cache", "~/.npm"}
				c.NativeSandbox.ReadOnlyPaths = []string{"/srv/data"}
			},
			binds: []string{"--bind", root, root, "--bind-try", filepath.Join(root, "cache"), filepath.Join(root, "cache"),
				"--bind-try", filepath.Join(home, ".npm"), filepath.Join(home, ".npm"), "--ro-bind-try", "/srv/data", "/srv/data", "--chdir", root}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default().Sandbox
			cfg.Isolation = "bwrap"
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			s := New(Options{Config: cfg, Files: testFiles(t, root, home, tc.allowed...), ReadOnly: tc.readOnly})
			got, err := s.Argv("make test", tc.cwd)
			if want := slices.Concat(tc.ns, bwrapSystem, tc.binds, sh); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("argv\n %q (%v)\nwant\n %q", got, err, want)
			}
		})
	}
}

// TestLandlockArgv: the launcher's command line: the policy grants the
// writable places of the confinement model, and denies the network unless
// allowNetwork; a kernel that cannot deny it gets a warning.
func TestLandlockArgv(t *testing.T) {
	tmp := tree(t, "root/", "extra/")
	root, extra := filepath.Join(tmp, "root"), filepath.Join(tmp, "extra")
	devs := []string{"/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}
	for _, tc := range []struct {
		name     string
		abi      int
		edit     func(c *config.Sandbox)
		readOnly bool
		allowed  []string
		host     []string
		rw       []string
		deny     bool
		warn     string
	}{
		{name: "defaults", abi: 6, host: []string{"TMPDIR=/var/tmp/x"}, deny: true,
			rw: append([]string{root, "/var/tmp/x"}, devs...)},
		{name: "no TMPDIR: /tmp", abi: 6, deny: true, rw: append([]string{root, "/tmp"}, devs...)},
		{name: "a relative TMPDIR: /tmp", abi: 6, host: []string{"TMPDIR=tmp"}, deny: true, rw: append([]string{root, "/tmp"}, devs...)},
		{name: "TMPDIR from sandbox.env", abi: 6, host: []string{"TMPDIR=/a"}, deny: true,
			edit: func(c *config.Sandbox) { c.Env = map[string]string{"TMPDIR": "/b"} },
			rw:   append([]string{root, "/b"}, devs...)},
		{name: "read-only, readWritePaths stay", abi: 6, readOnly: true, deny: true,
			edit: func(c *config.Sandbox) { c.NativeSandbox.ReadWritePaths = []string{"cache"} },
			rw:   append([]string{filepath.Join(root, "cache"), "/tmp"}, devs...)},
		{name: "allowedPaths", abi: 6, allowed: []string{extra}, deny: true,
			rw: append([]string{root, extra, "/tmp"}, devs...)},
		{name: "allowNetwork", abi: 6, edit: func(c *config.Sandbox) { c.NativeSandbox.AllowNetwork = true },
			rw: append([]string{root, "/tmp"}, devs...)},
		{name: "an old kernel warns", abi: 3, deny: true, rw: append([]string{root, "/tmp"}, devs...),
			warn: `this kernel's Landlock (ABI 3) cannot deny network access (ABI 4, Linux 6.7, can): the command has the network; use sandbox.isolation "bwrap" to cut it`},
		{name: "an old kernel with allowNetwork does not", abi: 3, rw: append([]string{root, "/tmp"}, devs...),
			edit: func(c *config.Sandbox) { c.NativeSandbox.AllowNetwork = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := landlockABI
			landlockABI = func() (int, error) { return tc.abi, nil }
			defer func() { landlockABI = saved }()
			cfg := config.Default().Sandbox
			cfg.Isolation = "landlock"
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			var warnings []string
			s := New(Options{Config: cfg, Files: testFiles(t, root, tmp, tc.allowed...), ReadOnly: tc.readOnly, HostEnv: tc.host,
				Launcher: []string{"/ws", "__landlock"}, Warn: func(m string) { warnings = append(warnings, m) }})
			argv, err := s.Argv("make test", root)
			if err != nil || len(argv) < 2 || !slices.Equal(argv[:2], []string{"/ws", "__landlock"}) {
				t.Fatalf("argv %q (%v) does not start with the launcher", argv, err)
			}
			p, cmd, err := landlock.ParseArgs(argv[2:])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cmd, []string{"/bin/sh", "-c", "--", "make test"}) || !slices.Equal(p.ReadWrite, tc.rw) || p.DenyNetwork != tc.deny {
				t.Errorf("command %q, policy %+v; want rw %q, deny %v", cmd, p, tc.rw, tc.deny)
			}
			if want := []string{tc.warn}; (tc.warn == "" && len(warnings) != 0) || (tc.warn != "" && !slices.Equal(warnings, want)) {
				t.Errorf("warnings %q, want %q", warnings, tc.warn)
			}
		})
	}
}

// TestUnavailable: an isolation this machine cannot give is an
// *UnavailableError with its cause, and no argv; without isolation the
// command is /bin/sh -c alone.
func TestUnavailable(t *testing.T) {
	savedBwrap, savedABI := findBwrap, landlockABI
	defer func() { findBwrap, landlockABI = savedBwrap, savedABI }()
	findBwrap = func() (string, error) { return "", exec.ErrNotFound }
	noLandlock := func() (int, error) {
		return 0, errors.Join(landlock.ErrUnavailable, errors.New("function not implemented"))
	}
	root := t.TempDir()
	for _, tc := range []struct {
		name      string
		isolation string
		abi       func() (int, error)
		launcher  []string
		cause     error  // errors.Is
		text      string // the cause's text
	}{
		{name: "no bubblewrap", isolation: "bwrap", cause: exec.ErrNotFound},
		{name: "no Landlock", isolation: "landlock", abi: noLandlock, launcher: []string{"/ws"}, cause: landlock.ErrUnavailable},
		{name: "no launcher", isolation: "landlock", abi: func() (int, error) { return 6, nil },
			text: "cannot find the ws executable to start the launcher"},
		{name: "no Landlock and no launcher: the kernel first", isolation: "landlock", abi: noLandlock, cause: landlock.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.abi != nil {
				landlockABI = tc.abi
			}
			cfg := config.Default().Sandbox
			cfg.Isolation = tc.isolation
			argv, err := New(Options{Config: cfg, Files: testFiles(t, root, root), Launcher: tc.launcher}).Argv("touch ran", root)
			var u *UnavailableError
			if argv != nil || !errors.As(err, &u) || u.Isolation != tc.isolation {
				t.Fatalf("argv %q, err %v", argv, err)
			}
			if (tc.cause != nil && !errors.Is(err, tc.cause)) || (tc.text != "" && u.Err.Error() != tc.text) {
				t.Errorf("cause %v", u.Err)
			}
		})
	}
	for _, iso := range []string{"", "none"} {
		cfg := config.Default().Sandbox
		cfg.Isolation = iso
		argv, err := New(Options{Config: cfg, Files: testFiles(t, root, root)}).Argv("touch ran", root)
		if err != nil || !slices.Equal(argv, []string{"/bin/sh", "-c", "--", "touch ran"}) {
			t.Errorf("isolation %q: argv %q, err %v", iso, argv, err)
		}
	}
}

// TestBwrapRuns runs what the sandbox gives (argv, environment and
// directory) with the real bubblewrap: the command writes the workspace
// and not the directory beside it. It skips where bwrap cannot run,
// unless WS_REQUIRE_BWRAP is 1, as CI sets it. (Landlock's launcher is
// ws itself: pkg/workspace's isolation tests run it.)
func TestBwrapRuns(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("WS_REQUIRE_BWRAP") == "1" {
		skip = t.Fatalf
	}
	if out, err := exec.Command("bwrap", "--ro-bind", "/", "/", "--unshare-net", "true").CombinedOutput(); err != nil {
		skip("bwrap cannot run here: %v %s", err, out)
	}
	tmp := tree(t, "root/sub/", "beside/")
	root, beside := filepath.Join(tmp, "root"), filepath.Join(tmp, "beside")
	cfg := config.Default().Sandbox
	cfg.Isolation = "bwrap"
	cfg.Env = map[string]string{"GREETING": "hi"}
	s := New(Options{Config: cfg, Files: testFiles(t, root, tmp), HostEnv: []string{"PATH=" + os.Getenv("PATH")}})
	dir, err := s.Dir("sub")
	if err != nil {
		t.Fatal(err)
	}
	argv, err := s.Argv(`echo "$GREETING" > in.txt; pwd; echo x > `+beside+`/out.txt`, dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = s.Env(nil), dir
	out, _ := cmd.CombinedOutput()
	if data, _ := os.ReadFile(filepath.Join(root, "sub", "in.txt")); string(data) != "hi\n" {
		t.Errorf("the write inside the workspace: %q; output %s", data, out)
	}
	if !strings.HasPrefix(string(out), dir+"\n") {
		t.Errorf("the command did not run in %s: %s", dir, out)
	}
	if _, err := os.Stat(filepath.Join(beside, "out.txt")); err == nil {
		t.Errorf("a write beside the workspace succeeded")
	}
}

// TestPlantedLink: a readWritePaths entry or an allowed path reached
// through a symlink that lies where confined commands may write (one may
// have made it) is refused under either isolation, before the command
// runs; one reached through a symlink commands cannot write is followed.
func TestPlantedLink(t *testing.T) {
	tmp := tree(t, "root/", "outside/", "root/cache -> /outside", "out-link -> /outside", "ro/", "ro/sub -> /outside")
	root := filepath.Join(tmp, "root")
	savedBwrap, savedABI := findBwrap, landlockABI
	findBwrap = func() (string, error) { return "/usr/bin/bwrap", nil }
	landlockABI = func() (int, error) { return 6, nil }
	defer func() { findBwrap, landlockABI = savedBwrap, savedABI }()
	for _, tc := range []struct {
		name     string
		rw       []string
		allowed  []string
		readOnly bool
		wantLink string // "" : no error
	}{
		{name: "a link in the workspace", rw: []string{"cache"}, wantLink: filepath.Join(root, "cache")},
		{name: "below a link in the workspace", rw: []string{"cache/npm"}, wantLink: filepath.Join(root, "cache")},
		{name: "an allowed path through a link in the workspace", allowed: []string{"cache"}, wantLink: filepath.Join(root, "cache")},
		{name: "a link inside another readWritePaths entry", rw: []string{"../ro", "../ro/sub"}, wantLink: filepath.Join(tmp, "ro", "sub")},
		{name: "a link commands cannot write", rw: []string{"../out-link"}},
		{name: "a read-only workspace: its links are not commands' own", rw: []string{"cache"}, readOnly: true},
	} {
		for _, iso := range []string{"bwrap", "landlock"} {
			t.Run(iso+" "+tc.name, func(t *testing.T) {
				cfg := config.Default().Sandbox
				cfg.Isolation = iso
				cfg.NativeSandbox.ReadWritePaths = tc.rw
				s := New(Options{Config: cfg, Files: testFiles(t, root, tmp, tc.allowed...), ReadOnly: tc.readOnly,
					HostEnv: []string{"TMPDIR=" + filepath.Join(tmp, "tmp")}, Launcher: []string{"/ws", "__landlock"}})
				_, err := s.Argv("true", root)
				var pe *PlantedLinkError
				switch {
				case tc.wantLink == "" && err != nil:
					t.Errorf("refused: %v", err)
				case tc.wantLink != "" && !errors.As(err, &pe):
					t.Errorf("error %v, want a PlantedLinkError", err)
				case tc.wantLink != "" && pe.Link != tc.wantLink:
					t.Errorf("link %s, want %s (%v)", pe.Link, tc.wantLink, err)
				}
			})
		}
	}
}

// TestNetworkCut: whether a command has no network when the config denies
// it: bwrap cuts it, Landlock from ABI 4 on a kernel that has it, no
// isolation never.
func TestNetworkCut(t *testing.T) {
	saved := landlockABI
	defer func() { landlockABI = saved }()
	for _, tc := range []struct {
		iso   string
		allow bool
		abi   int // 0: no Landlock
		want  bool
	}{
		{iso: "none", want: false},
		{iso: "bwrap", want: true},
		{iso: "bwrap", allow: true, want: false},
		{iso: "landlock", abi: 6, want: true},
		{iso: "landlock", abi: 4, want: true},
		{iso: "landlock", abi: 3, want: false},
		{iso: "landlock", abi: 0, want: false},
		{iso: "landlock", abi: 6, allow: true, want: false},
	} {
		landlockABI = func() (int, error) {
			if tc.abi == 0 {
				return 0, landlock.ErrUnavailable
			}
			return tc.abi, nil
		}
		cfg := config.Default().Sandbox
		cfg.Isolation, cfg.NativeSandbox.AllowNetwork = tc.iso, tc.allow
		if got := New(Options{Config: cfg}).NetworkCut(); got != tc.want {
			t.Errorf("%s allowNetwork=%v ABI %d: NetworkCut %v, want %v", tc.iso, tc.allow, tc.abi, got, tc.want)
		}
	}
}
