package search

import (
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/js"
)

// FormatResults is the text of mastra_workspace_search: each result as
// `<id>[:<start>-<end>]: <content>` (whole contents, so a multi-line
// document continues on the next lines), then `---` and the count with the
// mode, all joined by newlines.
func FormatResults(hits []Hit, mode string) string {
	var sb strings.Builder
	for _, h := range hits {
		// An id is often a path found on disk (the auto-index's): one
		// that does not print as itself is quoted, as ls shows it.
		sb.WriteString(wording.Name(h.ID))
		if h.Range != nil {
			sb.WriteString(":" + strconv.Itoa(h.Range.Start) + "-" + strconv.Itoa(h.Range.End))
		}
		sb.WriteString(": ")
		sb.WriteString(js.DecodeUTF8([]byte(h.Content))) // the model sees text; --json data keeps the bytes
		sb.WriteByte('\n')
	}
	sb.WriteString("---\n")
	sb.WriteString(strconv.Itoa(len(hits)) + " result")
	if len(hits) != 1 {
		sb.WriteByte('s')
	}
	sb.WriteString(" (" + mode + " search)")
	return sb.String()
}
