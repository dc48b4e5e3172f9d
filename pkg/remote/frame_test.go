package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestFrames(t *testing.T) {
	var b bytes.Buffer
	fw := &frameWriter{w: &b}
	big := strings.Repeat("x", maxFrame+10)
	fw.frame(kindHeader, []byte(`{"args":["read"]}`))
	fw.data(kindStdin, []byte(big))
	fw.frame(kindStdinEOF, nil)
	br := bufio.NewReader(&b)
	var kinds []byte
	var data []byte
	for {
		k, p, err := readFrame(br)
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatal(err)
			}
			break
		}
		kinds = append(kinds, k)
		if k == kindStdin {
			data = append(data, p...)
		}
	}
	if string(kinds) != "HDDE" || string(data) != big {
		t.Fatalf("frames %q, %d bytes of data", kinds, len(data))
	}
	// A stream cut inside a frame is malformed, not a clean end.
	if _, _, err := readFrame(bufio.NewReader(strings.NewReader("D\x00\x00\x00\x05ab"))); err == nil {
		t.Fatal("a cut frame reads without error")
	}
}

func TestFindMarker(t *testing.T) {
	for _, tc := range []struct{ in, before, after string }{
		{in: marker + "rest", after: "rest"},
		{in: "Warning: added host\n" + marker + "rest", before: "Warning: added host\n", after: "rest"},
		{in: "\x00ws\x00" + marker + "x", before: "\x00ws\x00", after: "x"},
		{in: "sh: 1: ws: not found\n", before: "sh: 1: ws: not found\n"},
	} {
		var stderr bytes.Buffer
		r := &reply{stderr: &stderr}
		br := bufio.NewReader(strings.NewReader(tc.in))
		found := r.findMarker(br)
		rest, _ := br.ReadString(0)
		if tc.after != "" {
			if !found || stderr.String() != tc.before || rest != tc.after {
				t.Errorf("%q: found %v, passed on %q, left %q", tc.in, found, stderr.String(), rest)
			}
		} else if found || r.before.String() != tc.before {
			t.Errorf("%q: found %v, kept %q", tc.in, found, r.before.String())
		}
	}
}

// TestHeaderBytes: the command line crosses as it was typed, bytes that
// are not UTF-8 included (a file name, a command), and a header of text
// is written in the plain form an earlier ws reads.
func TestHeaderBytes(t *testing.T) {
	for _, h := range []Header{
		{Version: "v", Args: []string{"write", "n\xff\xfe.txt", "--content", "x"}},
		{Version: "v", Args: []string{"exec", "--", "echo \xff"}, Inputs: []string{"old\xfe.txt"}},
		{Version: "v", Args: []string{"--thread", "t\x80", "read", "a.txt"}, StdinTTY: true},
	} {
		data, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var got Header
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("%+q came back as %+q (%s)", h.Args, got.Args, data)
		}
	}
	data, err := json.Marshal(Header{Version: "v", Args: []string{"read", "a.txt"}, Inputs: []string{"f"}})
	if want := `{"version":"v","args":["read","a.txt"],"stdin_tty":false,"stdout_tty":false,"inputs":["f"]}`; err != nil || string(data) != want {
		t.Errorf("text header: %s, %v; want %s", data, err, want)
	}
}

// TestReplyWords: words that come where frames should (the transport's
// as the connection ends, a crash's) are kept whole for the message, and
// a flood of them is passed on as it comes.
func TestReplyWords(t *testing.T) {
	frames := func(kind byte, p string) string {
		var b bytes.Buffer
		(&frameWriter{w: &b}).frame(kind, []byte(p))
		return b.String()
	}
	flood := strings.Repeat("panic line\n", maxWords/10)
	for _, tc := range []struct {
		name, in, stderr, after string
		exit                    int
	}{
		{"ssh closed", marker + frames(kindStderr, "err\n") + "Connection to box closed by remote host.\n",
			"err\n", "Connection to box closed by remote host.\n", -1},
		{"short", marker + "bye", "", "bye", -1},
		{"flood", marker + flood, flood, flood[:maxWords], -1},
		{"after the status", marker + frames(kindExit, "3") + "late words\n", "", "late words\n", 3},
	} {
		var stderr bytes.Buffer
		r := &reply{stderr: &stderr}
		r.read(bufio.NewReader(strings.NewReader(tc.in)), &frameWriter{w: io.Discard}, nil)
		if !r.started || r.exit != tc.exit || stderr.String() != tc.stderr || r.after.String() != tc.after {
			t.Errorf("%s: started %v, exit %d, stderr %.40q, kept %.40q", tc.name, r.started, r.exit, stderr.String(), r.after.String())
		}
	}
}

// TestServeSignalBeforeStart: a signal the local ws passes on while the
// input files still cross (a large or endless file: ws upload /dev/zero)
// ends the session as the signal asks, before the command runs; it is
// not a malformed stream (before: "ws: remote session: remote: malformed
// frame: 'S' in a file", exit 1).
func TestServeSignalBeforeStart(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "v", Args: []string{"upload", "big"}, Inputs: []string{"big"}})
	for _, tc := range []struct {
		name   string
		frames func(fw *frameWriter)
		status int
	}{
		{"in a file", func(fw *frameWriter) {
			fw.frame(kindHeader, head)
			fw.data(kindFileData, bytes.Repeat([]byte("x"), 3*maxFrame))
			fw.frame(kindSignal, []byte{15})
			fw.data(kindFileData, []byte("more"))
		}, 143},
		{"before the header", func(fw *frameWriter) {
			fw.frame(kindSignal, []byte{2})
			fw.frame(kindHeader, head)
		}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in bytes.Buffer
			tc.frames(&frameWriter{w: &in})
			var out bytes.Buffer
			ran := false
			status := Serve(&in, &out, "v", func(*Session) int { ran = true; return 0 })
			r := &reply{stderr: io.Discard}
			var stderr bytes.Buffer
			r.stderr = &stderr
			r.read(bufio.NewReader(&out), &frameWriter{w: io.Discard}, nil)
			if status != tc.status || r.exit != tc.status || ran || stderr.Len() != 0 {
				t.Errorf("status %d (sent %d), ran %v, stderr %q; want %d, not run, nothing said", status, r.exit, ran, stderr.String(), tc.status)
			}
		})
	}
}
