package udiff_test

import (
	"fmt"

	"github.com/wstools/ws/pkg/udiff"
)

func ExampleUnified() {
	a := []byte("one\ntwo\nthree")
	b := []byte("one\n2\nthree")
	fmt.Print(udiff.Unified("a/n.txt", "b/n.txt", a, b, 3))
	// Output:
	// --- a/n.txt
	// +++ b/n.txt
	// @@ -1,3 +1,3 @@
	//  one
	// -two
	// +2
	//  three
	// \ No newline at end of file
}
