package remote

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"strconv"
	"testing"
)

// TestServePull checks that a client that pulls its inputs is told so
// first, that a command sees an input's size without asking for it (an
// upload over its limit refused before a byte crossed), and that the
// first read asks for the file, whose bytes then come as the client sends
// them.
func TestServePull(t *testing.T) {
	head, _ := json.Marshal(Header{Version: "v", Args: []string{"upload", "big", "small"},
		Inputs: []string{"big", "small"}, InputSizes: []int64{1 << 30, 5}, PullInputs: true})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	fw := &frameWriter{w: inW}
	go fw.frame(kindHeader, head) // a pipe: it waits for serve to read it
	frames := make(chan byte, 16)
	wants := make(chan string, 4)
	go func() {
		br := bufio.NewReader(outR)
		for i := 0; i < len(marker); i++ {
			br.ReadByte()
		}
		for {
			kind, payload, err := readFrame(br)
			if err != nil {
				close(frames)
				return
			}
			if kind == kindWantFile {
				wants <- string(payload)
			}
			if kind != kindPing {
				frames <- kind
			}
		}
	}()
	// The client's side: each file asked for is sent.
	go func() {
		for w := range wants {
			if i, _ := strconv.Atoi(w); i != 1 {
				t.Errorf("asked for input %d, want 1 (small)", i)
			}
			fw.data(kindFileData, []byte("hello"))
			end, _ := json.Marshal(fileEnd{})
			fw.frame(kindFileEnd, end)
		}
	}()
	var got string
	status := serve(inR, outW, "v", func(s *Session) int {
		big, ok, err := s.Open("big")
		if !ok || err != nil {
			t.Errorf("open big: %v %v", ok, err)
			return 1
		}
		fi, err := big.(interface{ Stat() (fs.FileInfo, error) }).Stat()
		if err != nil || fi.Size() != 1<<30 || !fi.Mode().IsRegular() {
			t.Errorf("stat big: %v %v, want a regular file of 1 GiB", fi, err)
		}
		small, _, _ := s.Open("small")
		data, err := io.ReadAll(small)
		if err != nil {
			t.Errorf("read small: %v", err)
		}
		got = string(data)
		return 0
	}, func() {})
	outW.Close()
	inW.Close()
	close(wants)
	var kinds []byte
	for k := range frames {
		kinds = append(kinds, k)
	}
	if status != 0 || got != "hello" {
		t.Errorf("status %d, read %q; want 0 and hello", status, got)
	}
	// kindPull first, then only the small file was asked for.
	if len(kinds) < 2 || kinds[0] != kindPull || string(kinds[1]) != string(kindWantFile) {
		t.Errorf("frames %q, want L W … X", kinds)
	}
	n := 0
	for _, k := range kinds {
		if k == kindWantFile {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d files asked for, want 1 (the big one was never read)", n)
	}
}
