package patch

import "strconv"

func strconvQuote(b []byte) string { return strconv.Quote(string(b)) }
