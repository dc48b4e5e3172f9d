package workspace

import (
	"slices"
	"strings"

	"github.com/wstools/ws/pkg/config"
)

// readMediaPhrase is the part of read_file's description that names the
// default media types; tellReadMedia replaces it when the config sets
// others (a test checks that the description still holds it).
const readMediaPhrase = "Images and PDFs come back as media; other binary files need an explicit encoding."

// tellReadMedia states in read_file's description the media types the
// config sets (mediaTypes), where they differ from the default ones.
func (w *Workspace) tellReadMedia(s string) string {
	types := w.cfg.MediaTypes(ReadFile)
	switch {
	case slices.Equal(types, config.DefaultMediaTypes):
		return s
	case len(types) == 0:
		return strings.Replace(s, readMediaPhrase, "Binary files, images included, need an explicit encoding.", 1)
	}
	return strings.Replace(s, readMediaPhrase, "Files of these types come back as media: "+strings.Join(types, ", ")+"; other binary files need an explicit encoding.", 1)
}
