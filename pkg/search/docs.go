package search

// NumDocs is the number of documents in the index.
func (r *Reader) NumDocs() int { return r.nDocs }

// DocID is the id of the i-th document.
func (r *Reader) DocID(i int) string {
	rd := r.doc(i)
	return string(r.str(rd.idOff, rd.idLen))
}

// FindDoc finds a document by id: at hint when it is there (a vector
// store synced with this index knows the position), else by a scan.
func (r *Reader) FindDoc(id string, hint int) (int, bool) {
	if hint >= 0 && hint < r.nDocs && r.DocID(hint) == id {
		return hint, true
	}
	for i := 0; i < r.nDocs; i++ {
		if r.DocID(i) == id {
			return i, true
		}
	}
	return -1, false
}

// DocHit is the i-th document as a search result with this score, its
// line range found from the query's terms as a keyword search finds it.
func (r *Reader) DocHit(i int, query string, score float64) Hit {
	return r.hitAt(i, r.tok.Tokenize(query), score)
}

func (r *Reader) hitAt(i int, qt []string, score float64) Hit {
	rd := r.doc(i)
	h := Hit{
		ID:      string(r.str(rd.idOff, rd.idLen)),
		Content: string(r.str(rd.cOff, rd.cLen)),
		Score:   score,
	}
	if rd.mLen > 0 {
		h.Meta = append([]byte(nil), r.str(rd.mOff, rd.mLen)...)
	}
	if lr, ok := r.tok.FindLineRange(h.Content, qt); ok {
		if rd.startLine > 0 {
			lr.Start += rd.startLine - 1
			lr.End += rd.startLine - 1
		}
		h.Range = &lr
	}
	if rd.startLine > 0 && rd.source >= 0 && rd.source < r.nSrc {
		h.SourceFile = r.Source(rd.source).Path
	}
	return h
}
