package editmatch_test

import (
	"errors"
	"fmt"

	"github.com/wstools/ws/pkg/editmatch"
)

func ExampleApply() {
	file := []byte("def add(a, b):\n    if a:\n        return a - b\n    return b\n")
	// The model copied the block with 2-space indentation.
	m, err := editmatch.Apply(file,
		"def add(a, b):\n  if a:\n    return a - b",
		"def add(a, b):\n  if a:\n    return a + b", false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", m.Content())
	fmt.Println(m.Fallback, m.Ranges)
	fmt.Println(m.Note)
	// Output:
	// def add(a, b):
	//     if a:
	//         return a + b
	//     return b
	// indentation [{1 3}]
	// No exact match; old_string matched ignoring indentation (fallback indentation). Kept the file's 4-space indentation (new_string re-indented). Lines new_string leaves as they were keep the file's text.
}

func ExampleNotFoundError() {
	file := []byte("x = 1\ny = 2\n")
	_, err := editmatch.Apply(file, "x = 1\ny = 3", "x = 1\ny = 4", false)
	var nf *editmatch.NotFoundError
	if errors.As(err, &nf) {
		nf.Stale = true // the caller knows the file changed since it was read
		fmt.Println(nf)
	}
	// Output:
	// The specified text was not found. Make sure you use the exact text from the file.
	// The closest text is at lines 1-2; it first differs at line 2:
	//   file:       y = 2
	//   old_string: y = 3
	// The file has changed since you last read it; read it again before editing.
}
