package statefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "x.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := Write(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Fatalf("content %q, want %q", got, content)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode: %v %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("leftovers: %v", entries)
	}
	// A directory where the file should be: an error, nothing left behind.
	if err := Write(dir, []byte("x")); err == nil {
		t.Fatal("replaced a directory")
	}
	entries, _ = os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("temporary file left: %v", entries)
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		want      []string
		err       bool
	}{
		{"never made", filepath.Join(dir, "missing"), nil, false},
		{"entries by name", dir, []string{"f"}, false},
		{"not a directory", file, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			des, err := List(tc.dir)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want an error: %v", err, tc.err)
			}
			var got []string
			for _, d := range des {
				got = append(got, d.Name())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStringKeepsBytes(t *testing.T) {
	for _, s := range []String{"", "plain", "caf\u00e9", "n\xff.txt", "\xfe\xfd", `{"bytes":"x"}`} {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back String
		if err := json.Unmarshal(data, &back); err != nil || back != s {
			t.Errorf("%q: wrote %s, read back %q (%v)", s, data, back, err)
		}
	}
	if data, _ := json.Marshal(String("n\xff")); string(data) != `{"bytes":"bv8="}` {
		t.Errorf("not UTF-8: %s", data)
	}
	var bad String
	if err := json.Unmarshal([]byte(`{"bytes":"!!"}`), &bad); err == nil {
		t.Error("bad base64 accepted")
	}
}

// WriteUnsynced replaces a file as Write does, leaving no temporary file;
// SyncFS syncs the file system of a directory, and says when it cannot.
func TestWriteUnsyncedSyncFS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")
	p := filepath.Join(dir, "a")
	for _, data := range []string{"one", "two, longer"} {
		if err := WriteUnsynced(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != data {
			t.Errorf("read %q %v, want %q", got, err, data)
		}
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("%d files in the directory, want 1", len(des))
	}
	if err := SyncFS(dir); err != nil {
		t.Errorf("SyncFS: %v", err)
	}
	if err := SyncFS(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncFS of a missing directory: %v", err)
	}
}
