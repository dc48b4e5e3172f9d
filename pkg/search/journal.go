package search

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wstools/ws/pkg/statefile"
)

// The journal (index.log beside index.bin) holds the documents added
// with the index tool since the index file was last written, so that
// adding one document costs what the document costs, not a rewrite of the
// whole index. The next change of the index (a search that finds it, a
// refresh, a journal grown too long) takes them in and removes it.
//
//	header  24 bytes: magic "WSBM25LG", the CRC-32C (u32) and length (u64)
//	        of the index file it extends, then 4 unused bytes
//	record  payload length (u32), CRC-32C of the payload (u32), payload:
//	        id, content and metadata, each a length (u32) and its bytes,
//	        then the number of documents in the index with it (u32)
//
// A journal that names another index file (one written since: the
// journal was taken in, and removing it was cut short) is stale and
// ignored. A record that is cut short or fails its checksum ends the
// journal (a crash while one was appended): what came before it counts,
// and the next append writes over it.
const (
	LogFile      = "index.log"
	logMagic     = "WSBM25LG"
	logHeaderLen = 24
	logRecHead   = 8
)

// Journal is the documents of a store's journal, in the order they were
// added (each replaces a document of the same id, as Index.Add does).
type Journal struct {
	Docs []Doc
	// Count is the number of documents in the index with the journal's.
	Count int
	// end is the length of the journal's valid part.
	end int64
}

// baseID is what identifies an index file to a journal: its header's
// checksum (of the tables and the strings' checksum) and its length.
func baseID(base []byte) (uint32, uint64) {
	if len(base) < headerSize {
		return 0, 0
	}
	return le.Uint32(base[hCRC:]), uint64(len(base))
}

// LogPath is the journal file.
func (s Store) LogPath() string { return filepath.Join(s.Dir, LogFile) }

// ReadJournal returns the journal that extends the index file base (nil
// when there is none, or it extends another).
func (s Store) ReadJournal(base []byte) (*Journal, error) {
	data, err := os.ReadFile(s.LogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseJournal(data, base), nil
}

func parseJournal(data, base []byte) *Journal {
	crc, n := baseID(base)
	if len(data) < logHeaderLen || string(data[:8]) != logMagic || n == 0 ||
		le.Uint32(data[8:]) != crc || le.Uint64(data[12:]) != n {
		return nil
	}
	j := &Journal{end: logHeaderLen}
	for rest := data[logHeaderLen:]; len(rest) >= logRecHead; {
		size := uint64(le.Uint32(rest))
		if size > uint64(len(rest)-logRecHead) {
			break
		}
		payload := rest[logRecHead : logRecHead+size]
		if crc32.Checksum(payload, crcTable()) != le.Uint32(rest[4:]) {
			break
		}
		d, count, ok := decodeRecord(payload)
		if !ok {
			break
		}
		j.Docs = append(j.Docs, d)
		j.Count = count
		j.end += int64(logRecHead + size)
		rest = rest[logRecHead+size:]
	}
	return j
}

func decodeRecord(p []byte) (Doc, int, bool) {
	var fields [3][]byte
	for i := range fields {
		if len(p) < 4 || uint64(le.Uint32(p)) > uint64(len(p)-4) {
			return Doc{}, 0, false
		}
		n := le.Uint32(p)
		fields[i], p = p[4:4+n], p[4+n:]
	}
	if len(p) != 4 {
		return Doc{}, 0, false
	}
	d := Doc{ID: string(fields[0]), Content: string(fields[1]), Source: -1}
	if len(fields[2]) > 0 {
		d.Meta = append([]byte(nil), fields[2]...)
	}
	return d, int(le.Uint32(p)), true
}

func encodeRecord(d Doc, count int) []byte {
	size := 4 + len(d.ID) + 4 + len(d.Content) + 4 + len(d.Meta) + 4
	rec := make([]byte, logRecHead, logRecHead+size)
	for _, f := range []string{d.ID, d.Content, string(d.Meta)} {
		rec = le.AppendUint32(rec, uint32(len(f)))
		rec = append(rec, f...)
	}
	rec = le.AppendUint32(rec, uint32(count))
	le.PutUint32(rec[0:], uint32(size))
	le.PutUint32(rec[4:], crc32.Checksum(rec[logRecHead:], crcTable()))
	return rec
}

// Size is the length of the journal's valid part, header included (0:
// there is none).
func (j *Journal) Size() int64 {
	if j == nil {
		return 0
	}
	return j.end
}

// Has reports whether a document of the journal has the id.
func (j *Journal) Has(id string) bool {
	if j == nil {
		return false
	}
	for _, d := range j.Docs {
		if d.ID == id {
			return true
		}
	}
	return false
}

// AppendJournal adds d (a document of the index tool: no source) to the
// journal of the index file base, j being that journal as ReadJournal
// returned it (nil: a new one is started), with count the number of
// documents the index holds with it. The record is on disk (fsynced)
// when it returns. The caller holds the store's lock.
func (s Store) AppendJournal(base []byte, j *Journal, d Doc, count int) error {
	if uint64(len(d.ID))+uint64(len(d.Content))+uint64(len(d.Meta)) > 1<<31 {
		return fmt.Errorf("document too large for the journal")
	}
	path := s.LogPath()
	if j == nil {
		// A new journal (or one that extends another index file) starts
		// from its header, written whole, so it is never half there.
		crc, n := baseID(base)
		head := make([]byte, logHeaderLen)
		copy(head, logMagic)
		le.PutUint32(head[8:], crc)
		le.PutUint64(head[12:], n)
		if err := statefile.Write(path, head); err != nil {
			return err
		}
		j = &Journal{end: logHeaderLen}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	// Over a record cut short by a crash, if there is one.
	if err := f.Truncate(j.end); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(j.end, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	_, err = f.Write(encodeRecord(d, count))
	return statefile.SyncClose(f, err)
}

// RemoveJournal removes the journal, once the index file has taken it
// in (or it is stale).
func (s Store) RemoveJournal() error {
	err := os.Remove(s.LogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// HasID reports whether the index holds a document of the id. It reads
// every id: a look-up for an index being added to, not for a query.
func (r *Reader) HasID(id string) bool {
	for i := 0; i < r.nDocs; i++ {
		rd := r.doc(i)
		if rd.idLen == uint32(len(id)) && string(r.str(rd.idOff, rd.idLen)) == id {
			return true
		}
	}
	return false
}
