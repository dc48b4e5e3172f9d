package remote_test

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/remote"
)

// TestServeFramesReaderGone: the reader of ws __remote's frames (its
// stderr: the transport, sshd) goes away while a command runs, as when
// the connection drops. Its next frame must fail, not kill it by
// SIGPIPE: it did, at times before the hangup it had begun reached the
// command, and then only the shell died (its parent-death signal) while
// what the shell started ran on, orphaned, after the call had ended.
func TestServeFramesReaderGone(t *testing.T) {
	dir := t.TempDir()
	ws := buildWS(t, dir)
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "bg.pid")
	cmd := exec.Command(ws, "__remote")
	cmd.Env = append(os.Environ(), "WS_STATE_DIR="+filepath.Join(dir, "state"), "WS_REMOTE=", "WS_ROOT=", "WS_CONFIG=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errW.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Kill() // when the test failed before it ended
		<-exited
	}()
	head, _ := json.Marshal(remote.Header{Version: "v", HeartbeatMS: 50,
		Args: []string{"--root", root, "exec", "--", "sleep 60 & echo $! > " + pidFile + "; wait"}})
	if err := frame(stdin, 'H', head); err != nil {
		t.Fatal(err)
	}
	// The client pings (so the server does not hang up on a silent one)
	// until the command has started its sleep; its frames pile up in the
	// pipe meanwhile.
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		frame(stdin, 'P', nil)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	// The connection drops: nobody reads the frames, nor pings.
	errR.Close()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("ws __remote did not end once its client was gone")
	}
	if st := cmd.ProcessState.Sys().(syscall.WaitStatus); st.Signaled() {
		t.Errorf("ws __remote was killed by %v", st.Signal())
	}
	// What the command started is stopped with it (TERM, KILL after the
	// grace period), not left running.
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's sleep (pid %d) runs on after ws __remote ended", pid)
		}
	}
}

// frame writes one frame of the session: its kind, the payload's length
// (4 bytes, big-endian), the payload.
func frame(w io.Writer, kind byte, payload []byte) error {
	b := append([]byte{kind, 0, 0, 0, 0}, payload...)
	binary.BigEndian.PutUint32(b[1:5], uint32(len(payload)))
	_, err := w.Write(b)
	return err
}
