package history

import (
	"errors"
	"os"
	"strings"
)

// collect applies the caps and removes what nothing refers to: the oldest
// changes (whole groups) until the kept blobs total at most MaxTotalBytes
// and the entries number at most MaxEntries (the newest change always
// stays), damaged records, blobs no record or pending change refers to,
// settled pending files, and temporary files of writers that died. The
// store lock must be held; every write to the store happens under it, so
// a temporary file seen here is a leftover. Errors are not reported: a
// later collection tries again.
func (s *Store) collect() {
	manifests := map[string][]storedNode{}
	failed := false // a read error other than damage: remove no blob
	refs := func(files []fileRecord, into map[string]int64) {
		for i := range files {
			f := &files[i]
			switch {
			case f.Before.TooLarge:
			case f.Before.Kind == KindFile:
				into[f.Before.SHA256] = f.Before.Size
			case f.Before.Kind == KindDir && f.Manifest == "": // a renamed directory: no tree kept
			case f.Before.Kind == KindDir:
				into[f.Manifest] = f.ManifestSize
				nodes, ok := manifests[f.Manifest]
				if !ok {
					var err error
					nodes, err = s.readManifest(f.Manifest)
					if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrGone) {
						failed = true
					}
					manifests[f.Manifest] = nodes
				}
				for _, n := range nodes {
					if n.Kind == KindFile {
						into[n.SHA256] = n.Size
					}
				}
			}
		}
	}

	ids, err := s.recordIDs()
	if err != nil {
		return
	}
	type loaded struct {
		id    string
		files int
		refs  map[string]int64
	}
	var recs []loaded
	for _, id := range ids {
		r, err := s.loadRecord(id)
		if errors.Is(err, errNewer) {
			failed = true
			continue
		}
		if errors.Is(err, ErrCorrupt) {
			os.Remove(s.path(entriesDir, id+".json"))
			continue
		}
		if err != nil || r == nil {
			return // unreadable: better to keep every blob this time
		}
		l := loaded{id: id, files: len(r.Files), refs: map[string]int64{}}
		refs(r.Files, l.refs)
		recs = append(recs, l)
	}

	// Pending changes keep their blobs. Those of dead processes wait for
	// Recover, up to orphanTTL; files of settled ones are removed.
	live := map[string]int64{}
	jsons, locks, err := s.pendingTxns()
	if err != nil {
		return
	}
	hasJSON := map[string]bool{}
	for _, txn := range jsons {
		hasJSON[txn] = true
		p, err := s.loadPending(txn)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case errors.Is(err, errNewer):
			failed = true
			continue
		case errors.Is(err, ErrCorrupt):
			if orphan, held := s.tryOrphan(txn); orphan {
				s.removePending(txn)
				held.Release()
			}
			continue
		case err != nil:
			return
		}
		if s.opts.Now().Sub(p.Begun) > orphanTTL {
			if orphan, held := s.tryOrphan(txn); orphan {
				s.removePending(txn)
				held.Release()
				continue
			}
		}
		refs(p.Files, live)
	}
	for _, txn := range locks {
		if hasJSON[txn] {
			continue
		}
		// A .lock alone: its process died in Begin, or is finishing.
		if orphan, held := s.tryOrphan(txn); orphan && held != nil {
			os.Remove(s.path(pendingDir, txn+".lock"))
			held.Release()
		}
	}

	count := map[string]int{}
	var total int64
	entries := 0
	for _, r := range recs {
		entries += r.files
		for sha, size := range r.refs {
			if count[sha] == 0 {
				total += size
			}
			count[sha]++
		}
	}
	drop := 0
	for drop < len(recs)-1 && (total > s.opts.MaxTotalBytes || entries > s.opts.MaxEntries) {
		r := recs[drop]
		for sha, size := range r.refs {
			if count[sha]--; count[sha] == 0 {
				total -= size
			}
		}
		entries -= r.files
		drop++
	}
	for _, r := range recs[:drop] {
		os.Remove(s.path(entriesDir, r.id+".json"))
	}
	for _, r := range recs[drop:] {
		for sha := range r.refs {
			live[sha] = 0
		}
	}

	if failed {
		return
	}
	des, err := os.ReadDir(s.path(blobsDir))
	if err == nil {
		for _, d := range des {
			if _, ok := live[d.Name()]; !ok {
				os.Remove(s.path(blobsDir, d.Name()))
			}
		}
	}
	for _, dir := range []string{entriesDir, pendingDir} {
		des, _ := os.ReadDir(s.path(dir))
		for _, d := range des {
			if strings.HasPrefix(d.Name(), ".tmp-") {
				os.Remove(s.path(dir, d.Name()))
			}
		}
	}
}
