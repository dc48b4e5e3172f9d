package remote

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstallShadowed: when another ws comes first on the PATH there, the
// one --remote runs, install says so (before, it reported the copy as
// installed, and --remote went on running the other one). The binary is a
// script that answers __selfcheck as ws does.
func TestInstallShadowed(t *testing.T) {
	needSameMachine(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	bin := filepath.Join(home, ".local", "bin")
	other := filepath.Join(dir, "other")
	for _, d := range []string{bin, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(dir, "ws")
	script := "#!/bin/sh\n[ \"$1\" = __selfcheck ] || exit 1\ns=$(sha256sum \"$0\")\necho \"v1 ${s%% *}\"\n"
	if err := os.WriteFile(self, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "ws"), []byte("#!/bin/sh\necho old\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	for _, tc := range []struct {
		name, path, shadow string
	}{
		{"shadowed", other + ":" + bin + ":" + path, filepath.Join(other, "ws")},
		{"first", bin + ":" + other + ":" + path, ""},
	} {
		tg, err := Parse("exec:env HOME=" + home + " PATH=" + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, round := range []string{"copy", "same"} {
			res, err := Install(context.Background(), tg, nil, self, "v1")
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, round, err)
			}
			if res.Path != filepath.Join(bin, "ws") || res.Already != (round == "same") || res.ShadowedBy != tc.shadow {
				t.Errorf("%s, %s: %+v; want %s, shadowed by %q", tc.name, round, res, filepath.Join(bin, "ws"), tc.shadow)
			}
			if note := "note: --remote runs " + tc.shadow + " there"; (tc.shadow != "") != strings.Contains(res.Text(), note) {
				t.Errorf("%s, %s: %q", tc.name, round, res.Text())
			}
		}
		os.Remove(filepath.Join(bin, "ws"))
	}
}

// TestInstallSSHRefusal: ws remote install says what to do about ssh's
// commonest refusals, as --remote does (it gave ssh's words alone).
func TestInstallSSHRefusal(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ said, hint string }{
		{"dev@box: Permission denied (publickey).", "load the key into ssh-agent or name it with IdentityFile"},
		{"Host key verification failed.", "ssh to the host once by hand to check its key and accept it"},
	} {
		script := filepath.Join(dir, "refuse.sh")
		if err := os.WriteFile(script, []byte("echo '"+tc.said+"' >&2\nexit 255\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tg, err := Parse("exec:sh " + script)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Install(context.Background(), tg, nil, script, "v1")
		if err == nil || !strings.Contains(err.Error(), tc.said) || !strings.HasSuffix(err.Error(), tc.hint) {
			t.Errorf("install refused with %q: %v; want the hint %q", tc.said, err, tc.hint)
		}
	}
}

// TestInstallSpacedPath: a directory whose path has a space (a home, a
// PATH entry such as /mnt/c/Program Files/…) is reported whole (before,
// the answer was cut at the space: "installed ws at /home/my", with notes
// about a ws named "path" shadowing it); what a login shell's startup file
// prints before the answer is not taken for it (before: "unexpected
// answer").
func TestInstallSpacedPath(t *testing.T) {
	needSameMachine(t)
	home := filepath.Join(t.TempDir(), "my home")
	bin := filepath.Join(home, ".local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(t.TempDir(), "ws")
	script := "#!/bin/sh\n[ \"$1\" = __selfcheck ] || exit 1\ns=$(sha256sum \"$0\")\necho \"v1 ${s%% *}\"\n"
	if err := os.WriteFile(self, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := "env 'HOME=" + home + "' 'PATH=" + bin + ":" + os.Getenv("PATH") + "'"
	// The second prints first, as a login shell's startup file may.
	for _, prefix := range []string{"exec:" + env, `exec:sh -c 'echo welcome; echo same /x path; exec "$@"' sh ` + env} {
		tg, err := Parse(prefix)
		if err != nil {
			t.Fatal(err)
		}
		for _, round := range []string{"copy", "same"} {
			res, err := Install(context.Background(), tg, nil, self, "v1")
			if err != nil {
				t.Fatalf("%s, %s: %v", prefix, round, err)
			}
			if res.Path != filepath.Join(bin, "ws") || !res.OnPath || res.ShadowedBy != "" || res.Already != (round == "same") {
				t.Errorf("%s, %s: %+v; want %s, on the PATH, not shadowed", prefix, round, res, filepath.Join(bin, "ws"))
			}
		}
		os.Remove(filepath.Join(bin, "ws"))
	}
}

// needSameMachine skips a test that installs this binary where it runs,
// unless uname there names this build's system and machine.
func needSameMachine(t *testing.T) {
	t.Helper()
	sys, err := exec.Command("uname", "-sm").Output()
	if err != nil {
		t.Skip(err)
	}
	if want, err := unameOf(runtime.GOOS, runtime.GOARCH); err != nil || want != strings.TrimSpace(string(sys)) {
		t.Skipf("uname -sm says %q (%v)", sys, err)
	}
}
