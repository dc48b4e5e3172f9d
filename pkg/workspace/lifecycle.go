package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/search/engine"
	"github.com/wstools/ws/pkg/statefile"
)

// metaFile records when the workspace's state was created; its mtime is
// when a tool was last called (lastAccessedAt).
const metaFile = "workspace.json"

type workspaceMeta struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Root      statefile.String `json:"root"` // bytes kept: a root need not be UTF-8
	CreatedAt string           `json:"created_at"`
}

// rootsDir holds one file per workspace root that has used the state
// directory (roots/<16 hex of the SHA-256 of the real root>.json, naming
// the root), so destroy knows a state directory given to several
// workspaces even when the others left nothing else it could attribute
// (their kept versions for undo name files, not roots).
const rootsDir = "roots"

// rootMark is the content of a file of rootsDir.
type rootMark struct {
	Root statefile.String `json:"root"`
}

// touch records an access: the first one creates workspace.json, later
// ones set its modification time; the root's file in roots/ likewise. A
// file that does not decode (damaged) is written again, with a warning.
// A failure here never fails a call.
func (w *Workspace) touch() {
	if w.stateDir == "" {
		return
	}
	now := w.now()
	meta := filepath.Join(w.stateDir, metaFile)
	if w.touchFile(meta, now, func(data []byte) bool {
		var m workspaceMeta
		return json.Unmarshal(data, &m) == nil && m.ID != "" && m.Root != ""
	}, func() any {
		return workspaceMeta{ID: w.ID(), Name: w.Name(), Root: statefile.String(w.fs.RealBase()),
			CreatedAt: now.UTC().Format(time.RFC3339Nano)}
	}) {
		w.warn("the state directory's " + metaFile + " was damaged; it was written again (createdAt starts now)")
	}
	w.touchFile(w.rootMarkFile(), now, func(data []byte) bool {
		var m rootMark
		return json.Unmarshal(data, &m) == nil && string(m.Root) == w.fs.RealBase()
	}, func() any { return rootMark{Root: statefile.String(w.fs.RealBase())} })
}

// touchFile sets the modification time of a state file, (re)writing it
// with content's JSON when it is not there or its bytes are not valid. It
// reports whether a file that was there was written again.
func (w *Workspace) touchFile(p string, now time.Time, valid func([]byte) bool, content func() any) (mended bool) {
	data, err := statefile.Read(p)
	if err == nil && valid(data) {
		_ = os.Chtimes(p, now, now)
		return false
	}
	out, merr := json.MarshalIndent(content(), "", "  ")
	if merr != nil || w.writeStateFile(p, append(out, '\n')) != nil {
		return false
	}
	_ = os.Chtimes(p, now, now)
	return err == nil
}

// rootMarkFile is this workspace's file in rootsDir.
func (w *Workspace) rootMarkFile() string {
	return filepath.Join(w.stateDir, rootsDir, hashHex(w.fs.RealBase(), 16)+".json")
}

// InfoRequest is the input of `ws info` (Mastra's getInfo).
type InfoRequest struct {
	// FileCount counts the workspace's files (ten levels deep, as Mastra's
	// includeFileCount does): slow on a big tree.
	FileCount bool `json:"includeFileCount,omitempty"`
}

// InfoResult describes the workspace: getInfo's fields, then ws's own.
type InfoResult struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"` // ready: the workspace has state; pending: none yet (or destroyed)
	// CreatedAt and LastAccessedAt are when the state was created and when
	// a tool was last called; null without state.
	CreatedAt      *time.Time     `json:"created_at"`
	LastAccessedAt *time.Time     `json:"last_accessed_at"`
	Filesystem     InfoFilesystem `json:"filesystem"`
	Sandbox        *InfoSandbox   `json:"sandbox"`   // null when the config switches it off
	StateDir       Bytes          `json:"state_dir"` // paths: {"bytes": base64} when not UTF-8
	StateExists    bool           `json:"state_exists"`
	Processes      InfoProcesses  `json:"processes"`
	Index          InfoIndex      `json:"index"`
}

// InfoFilesystem is the filesystem's description.
type InfoFilesystem struct {
	Provider  string `json:"provider"` // "local"
	BasePath  Bytes  `json:"base_path"`
	ReadOnly  bool   `json:"read_only"`
	Contained bool   `json:"contained"`
	// AllowedPaths are filesystem.allowedPaths, absolute (getInfo's
	// metadata.allowedPaths), when there are any and access is contained.
	AllowedPaths []Bytes `json:"allowed_paths,omitempty"`
	TotalFiles   *int    `json:"total_files,omitempty"`
}

// InfoSandbox is the sandbox's description.
type InfoSandbox struct {
	Provider  string `json:"provider"` // "local"
	Status    string `json:"status"`   // "ready"
	Isolation string `json:"isolation"`
	// IsolationConfig is getInfo's isolationConfig: set when commands run
	// isolated.
	IsolationConfig  *InfoIsolation `json:"isolation_config,omitempty"`
	WorkingDirectory Bytes          `json:"working_directory"`
}

// InfoIsolation is what an isolated command may reach besides the
// workspace: the network, and paths (absolute) it may write or only read.
type InfoIsolation struct {
	AllowNetwork   bool    `json:"allow_network"`
	ReadOnlyPaths  []Bytes `json:"read_only_paths,omitempty"`
	ReadWritePaths []Bytes `json:"read_write_paths,omitempty"`
	// networkKept: the config denies the network, but this kernel's
	// Landlock cannot (or it has none).
	networkKept bool
}

// InfoProcesses counts the workspace's background process records by
// state, and the foreground runs kept for their output (Kept).
type InfoProcesses struct {
	Running  int `json:"running"`
	Exited   int `json:"exited"`
	Killed   int `json:"killed"`
	TimedOut int `json:"timed_out"`
	Lost     int `json:"lost"`
	Kept     int `json:"kept_runs"`
}

// InfoIndex describes the search index.
type InfoIndex struct {
	Documents  int    `json:"documents"`
	Vectors    int    `json:"vectors"`
	Name       string `json:"name"` // the vector index's name (searchIndexName)
	Model      string `json:"model,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	// Problem says why the index file could not be read: damaged, or
	// written by a newer ws (its documents are not counted then).
	Problem string `json:"problem,omitempty"`
}

// Info describes the workspace without changing anything.
func (w *Workspace) Info(ctx context.Context, req InfoRequest) (*InfoResult, error) {
	res := &InfoResult{ID: w.ID(), Name: w.Name(), Status: "pending", StateDir: Bytes(w.stateDir),
		Filesystem: InfoFilesystem{Provider: "local", BasePath: Bytes(w.fs.RealBase()), ReadOnly: w.readOnly, Contained: w.cfg.Filesystem.Contained},
		Index:      InfoIndex{Name: w.IndexName()}}
	if w.fs.Contained() {
		paths, _ := w.fs.AllowedRoots()
		for _, p := range paths {
			res.Filesystem.AllowedPaths = append(res.Filesystem.AllowedPaths, Bytes(p))
		}
	}
	if !w.cfg.Sandbox.Disabled {
		res.Sandbox = &InfoSandbox{Provider: "local", Status: "ready", Isolation: w.cfg.Sandbox.Isolation, WorkingDirectory: Bytes(w.fs.RealBase())}
		if iso := w.cfg.Sandbox.Isolation; iso == "bwrap" || iso == "landlock" {
			ns := w.cfg.Sandbox.NativeSandbox
			ic := &InfoIsolation{AllowNetwork: ns.AllowNetwork, networkKept: !ns.AllowNetwork && !w.sandbox().NetworkCut()}
			for _, p := range ns.ReadOnlyPaths {
				ic.ReadOnlyPaths = append(ic.ReadOnlyPaths, Bytes(w.fs.Absolute(p)))
			}
			for _, p := range ns.ReadWritePaths {
				ic.ReadWritePaths = append(ic.ReadWritePaths, Bytes(w.fs.Absolute(p)))
			}
			res.Sandbox.IsolationConfig = ic
		}
	}
	if req.FileCount {
		n := engine.CountFiles(ctx, w.fs)
		res.Filesystem.TotalFiles = &n
	}
	if w.stateDir != "" {
		if _, err := os.Stat(w.stateDir); err == nil {
			res.StateExists = true
		}
		if st, err := os.Stat(filepath.Join(w.stateDir, metaFile)); err == nil {
			res.Status = "ready"
			mt := st.ModTime().UTC()
			res.LastAccessedAt = &mt
			var m workspaceMeta
			if data, err := os.ReadFile(filepath.Join(w.stateDir, metaFile)); err == nil && json.Unmarshal(data, &m) == nil {
				if t, err := time.Parse(time.RFC3339Nano, m.CreatedAt); err == nil {
					t = t.UTC()
					res.CreatedAt = &t
				}
			}
		}
	}
	if res.StateExists {
		entries, err := w.procStore().List(w.fs.RealBase())
		if err != nil {
			return nil, w.stateError(err)
		}
		for _, e := range entries {
			if e.Record.Foreground {
				res.Processes.Kept++
				continue
			}
			switch processOf(e).State {
			case "running", "stopped":
				res.Processes.Running++
			case "exited":
				res.Processes.Exited++
			case "killed":
				res.Processes.Killed++
			case "timed_out":
				res.Processes.TimedOut++
			default:
				res.Processes.Lost++
			}
		}
		st := w.searchEngine().Stats()
		res.Index.Documents, res.Index.Vectors, res.Index.Model, res.Index.Dimensions = st.Documents, st.Vectors, st.Model, st.Dimensions
		res.Index.Problem = st.Problem
	}
	return res, nil
}

// isolationText is what ws info says of an isolation's reach, in
// parentheses after its name ("" without isolation).
func isolationText(ic *InfoIsolation) string {
	if ic == nil {
		return ""
	}
	parts := []string{"no network"}
	switch {
	case ic.AllowNetwork:
		parts[0] = "network allowed"
	case ic.networkKept:
		parts[0] = "network denied, but this kernel's Landlock cannot cut it"
	}
	list := func(what string, paths []Bytes) {
		if len(paths) > 0 {
			s := make([]string, len(paths))
			for i, p := range paths {
				s[i] = string(p)
			}
			parts = append(parts, what+": "+strings.Join(s, ", "))
		}
	}
	list("also writable", ic.ReadWritePaths)
	list("read-only", ic.ReadOnlyPaths)
	return " (" + strings.Join(parts, "; ") + ")"
}

// Text is one "key: value" line per fact.
func (r *InfoResult) Text() string {
	var sb strings.Builder
	line := func(k, v string) { sb.WriteString(k + ": " + v + "\n") }
	line("id", r.ID)
	line("name", r.Name)
	line("status", r.Status)
	when := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.Format(time.RFC3339)
	}
	line("createdAt", when(r.CreatedAt))
	line("lastAccessedAt", when(r.LastAccessedAt))
	fsDesc := "local " + string(r.Filesystem.BasePath)
	if r.Filesystem.ReadOnly {
		fsDesc += " (read-only"
	} else {
		fsDesc += " (read-write"
	}
	if r.Filesystem.Contained {
		fsDesc += ", contained"
		for i, p := range r.Filesystem.AllowedPaths {
			if i == 0 {
				fsDesc += "; also " + string(p)
			} else {
				fsDesc += ", " + string(p)
			}
		}
		fsDesc += ")"
	} else {
		fsDesc += ", not contained)"
	}
	if r.Filesystem.TotalFiles != nil {
		fsDesc += fmt.Sprintf(", %d %s", *r.Filesystem.TotalFiles, wording.Plural(*r.Filesystem.TotalFiles, "file", "files"))
	}
	line("filesystem", fsDesc)
	if r.Sandbox != nil {
		line("sandbox", "local, isolation "+r.Sandbox.Isolation+isolationText(r.Sandbox.IsolationConfig)+", working directory "+string(r.Sandbox.WorkingDirectory))
	} else {
		line("sandbox", "none")
	}
	if !r.StateExists {
		line("state", string(r.StateDir)+" (none: nothing has run here yet, or ws destroy removed it)")
		return strings.TrimSuffix(sb.String(), "\n")
	}
	line("state", string(r.StateDir))
	p := r.Processes
	procs := []string{strconv.Itoa(p.Running) + " running", strconv.Itoa(p.Exited) + " exited"}
	for _, x := range []struct {
		n    int
		what string
	}{{p.Killed, "killed"}, {p.TimedOut, "timed out"}, {p.Lost, "lost"}, {p.Kept, wording.Plural(p.Kept, "foreground run", "foreground runs") + " kept"}} {
		if x.n > 0 {
			procs = append(procs, strconv.Itoa(x.n)+" "+x.what)
		}
	}
	line("processes", strings.Join(procs, ", "))
	idx := fmt.Sprintf("%d %s", r.Index.Documents, wording.Plural(r.Index.Documents, "document", "documents"))
	if r.Index.Problem != "" {
		idx = r.Index.Problem
	}
	if r.Index.Model != "" {
		idx += fmt.Sprintf(", %d %s in %s (model %s, %d dimensions)", r.Index.Vectors, wording.Plural(r.Index.Vectors, "vector", "vectors"),
			r.Index.Name, r.Index.Model, r.Index.Dimensions)
	}
	line("index", idx)
	return strings.TrimSuffix(sb.String(), "\n")
}

// DestroyRequest is the input of `ws destroy`.
type DestroyRequest struct{}

// DestroyResult says what destroy did.
type DestroyResult struct {
	Stopped  []int `json:"stopped"`   // pids of the background processes stopped
	StateDir Bytes `json:"state_dir"` // {"bytes": base64} when not UTF-8
	Removed  bool  `json:"removed"`   // false: there was no state
	textOut
}

// Destroy stops every background process of the workspace and removes its
// state directory (read records, locks, process records and logs, the
// search index and vectors). The workspace's files are never touched: a
// state directory that is the root or holds it is refused, and so is one
// that holds anything ws does not make or that another workspace uses;
// only ws's own entries are removed.
func (w *Workspace) Destroy(ctx context.Context, _ DestroyRequest) (*DestroyResult, error) {
	if w.stateDir == "" {
		return nil, errs.NoStateDir()
	}
	real := fsroot.RealpathPartial(w.stateDir)
	if _, inside := fsroot.Within(real, w.fs.RealBase()); inside {
		return nil, errs.DestroyHoldsRoot(w.stateDir)
	}
	res := &DestroyResult{Stopped: []int{}, StateDir: Bytes(w.stateDir)}
	if _, err := os.Stat(w.stateDir); errors.Is(err, fs.ErrNotExist) {
		res.text = "No state to remove: " + w.stateDir + " does not exist."
		return res, nil
	}
	if other := w.otherRoots(); other != "" {
		return nil, errs.DestroyShared(w.stateDir, other)
	}
	if _, err := w.stateEntries(); err != nil {
		return nil, err
	}
	// No background process may start until the records are gone: one
	// whose record is made after the list below would lose it and run on.
	held, err := w.procStore().LockOutStarts()
	if err != nil {
		return nil, w.stateError(err)
	}
	defer held.Release()
	names, err := w.stateEntries() // procs/ too, which the lock may have made
	if err != nil {
		return nil, err
	}
	entries, damaged, err := w.procStore().ListSkipped(w.fs.RealBase())
	if err != nil {
		return nil, w.stateError(err)
	}
	for _, id := range damaged {
		if pid, ended, ok := procstate.DamagedEnded(id); ok && !ended {
			return nil, errs.DestroyDamagedRunning(w.stateDir, id, pid)
		}
	}
	for _, e := range entries {
		if e.Record.Running() || e.Record.SupervisorRunning() {
			pid := strconv.Itoa(e.Record.PID)
			if _, err := w.Kill(ctx, KillRequest{PID: pid}); err != nil {
				var we *errs.Error
				if !errors.As(err, &we) {
					return nil, err // interrupted
				}
				continue // it ended meanwhile
			}
			res.Stopped = append(res.Stopped, e.Record.PID)
		}
	}
	if err := w.removeState(names); err != nil {
		return nil, err
	}
	res.Removed = true
	var sb strings.Builder
	if n := len(res.Stopped); n > 0 {
		pids := make([]string, n)
		for i, p := range res.Stopped {
			pids[i] = strconv.Itoa(p)
		}
		fmt.Fprintf(&sb, "Stopped %d background %s (%s).\n", n, wording.Plural(n, "process", "processes"), strings.Join(pids, ", "))
	}
	sb.WriteString("Removed the state directory " + w.stateDir + "; the workspace's files are untouched.")
	res.text = sb.String()
	return res, nil
}

// removeTries bounds how often destroy lists and removes the state
// directory again when a ws running beside it added to it meanwhile.
const removeTries = 5

// removeState removes names, ws's entries of the state directory, then
// the directory. Only what ws made goes, entry by entry: stateEntries
// refused a directory holding anything else. A ws running beside destroy
// (a write keeping its undo copy, a read being tracked) may add to the
// directory while it goes: the removal then starts again from a new
// listing, a few times, before destroy says the directory is in use.
func (w *Workspace) removeState(names []string) error {
	for try := 0; ; try++ {
		err := removeEach(w.stateDir, names)
		if err == nil {
			err = os.Remove(w.stateDir)
		}
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil // gone: by this call, or by another destroy
		}
		if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			return w.stateError(err)
		}
		if try+1 == removeTries {
			return errs.DestroyBusy(w.stateDir)
		}
		if names, err = w.stateEntries(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
	}
}

// removeEach removes dir's entries names, each with all it holds.
func removeEach(dir string, names []string) error {
	for _, n := range names {
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// stateNames are the entries ws makes at the top of a state directory.
var stateNames = map[string]bool{metaFile: true, "reads": true, "locks": true, "procs": true,
	"search": true, "history": true, rootsDir: true}

// stateEntries lists the state directory for destroy and refuses one that
// is not this workspace's state alone: an entry ws does not make (the
// directory is something else, given as --state-dir by mistake), or a
// workspace.json naming another root (a state directory shared by
// workspaces). A statefile's temporary file is ws's own.
func (w *Workspace) stateEntries() ([]string, error) {
	dirents, err := os.ReadDir(w.stateDir)
	if err != nil {
		return nil, w.stateError(err)
	}
	var names []string
	for _, d := range dirents {
		n := d.Name()
		if !stateNames[n] && !strings.HasPrefix(n, ".tmp-") {
			return nil, errs.DestroyForeign(w.stateDir, n)
		}
		names = append(names, n)
	}
	if root := w.stateRoot(); root != "" && root != w.fs.RealBase() {
		return nil, errs.DestroyShared(w.stateDir, root)
	}
	return names, nil
}

// stateRoot is the root that the state directory's workspace.json names:
// the workspace that first used it ("" when there is none yet, or no
// state directory).
func (w *Workspace) stateRoot() string {
	if w.stateDir == "" {
		return ""
	}
	var m workspaceMeta
	if data, err := os.ReadFile(filepath.Join(w.stateDir, metaFile)); err == nil && json.Unmarshal(data, &m) == nil {
		return string(m.Root)
	}
	return ""
}

// otherRoots names a workspace root other than this one that has process
// records in the state directory, or another one's search index kept
// below search/roots/ (see indexDir); "" when there is none.
func (w *Workspace) otherRoots() string {
	all, _ := procstate.Open(w.stateDir).All()
	for _, e := range all {
		if string(e.Record.Root) != w.fs.RealBase() {
			return string(e.Record.Root)
		}
	}
	own := filepath.Base(w.rootMarkFile())
	marks, _ := os.ReadDir(filepath.Join(w.stateDir, rootsDir))
	for _, e := range marks {
		if e.Name() == own || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		var m rootMark
		data, err := os.ReadFile(filepath.Join(w.stateDir, rootsDir, e.Name()))
		switch {
		case err != nil:
		case json.Unmarshal(data, &m) != nil || m.Root == "":
			// Damaged: it was another workspace's (ours is named by our
			// root's hash), which may still use the directory.
			return "whose record " + rootsDir + "/" + e.Name() + " is damaged"
		case string(m.Root) != w.fs.RealBase():
			return string(m.Root)
		}
	}
	if other := w.otherReader(); other != "" {
		return other
	}
	roots := filepath.Join("search", "roots")
	ents, _ := os.ReadDir(filepath.Join(w.stateDir, roots))
	for _, e := range ents {
		if e.Name() != hashHex(w.fs.RealBase(), 16) {
			return "with the search index " + filepath.Join(roots, e.Name())
		}
	}
	return ""
}

// otherReader names the root of a read-tracker record in the state
// directory that another workspace made (its scope is not this one's),
// or "": the records of a state directory used before roots/ was kept.
func (w *Workspace) otherReader() string {
	// A scope is a plain JSON string: a root that is not UTF-8 comes back
	// with U+FFFD, so this workspace's own is compared in that form too.
	var own string
	if data, err := json.Marshal(w.scope()); err == nil {
		_ = json.Unmarshal(data, &own)
	}
	threads, _ := os.ReadDir(filepath.Join(w.stateDir, "reads"))
	for _, t := range threads {
		dir := filepath.Join(w.stateDir, "reads", t.Name())
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			var rec readRecord
			data, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil || json.Unmarshal(data, &rec) != nil || rec.Scope == own {
				continue
			}
			if root, ok := strings.CutPrefix(rec.Scope, "local:"); ok && root != "" {
				return root
			}
		}
	}
	return ""
}
