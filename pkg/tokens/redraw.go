package tokens

import "strings"

// Redraw is s as a terminal leaves it when a line is redrawn in place: a
// carriage return that no line feed follows (a progress bar, curl's
// meter, tqdm) starts the line again, so of each line only its last
// drawing is kept (the last non-empty one, when the line ends in a
// carriage return). Line ends are kept as they are, CRLF included. Text
// without such a carriage return comes back unchanged.
func Redraw(s string) string {
	if !redrawn(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		end := ""
		if nl {
			end = "\n"
			if strings.HasSuffix(line, "\r") {
				line, end = line[:len(line)-1], "\r\n"
			}
		}
		if strings.IndexByte(line, '\r') >= 0 {
			draws := strings.Split(line, "\r")
			line = ""
			for i := len(draws) - 1; i >= 0 && line == ""; i-- {
				line = draws[i]
			}
		}
		sb.WriteString(line)
		sb.WriteString(end)
		s = rest
	}
	return sb.String()
}

// redrawn tells whether s holds a carriage return that no line feed
// follows.
func redrawn(s string) bool {
	for i := strings.IndexByte(s, '\r'); i >= 0; {
		if i+1 >= len(s) || s[i+1] != '\n' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
