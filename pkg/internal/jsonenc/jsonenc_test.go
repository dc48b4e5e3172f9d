package jsonenc

import "testing"

func TestMarshal(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"a<b>&c", `"a<b>&c"`},
		{map[string]any{"k": []int{1, 2}}, `{"k":[1,2]}`},
		{"line\n", `"line\n"`},
	} {
		got, err := Marshal(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("a func was encoded")
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", `""`},
		{"a<b>", `"a<b>"`},
		{"caf\u00e9", `"café"`},
		{"n\xff", `{"bytes":"bv8="}`},
		{"\xfe\xfd<", `{"bytes":"/v08"}`},
	} {
		got, err := Bytes([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Bytes(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// FuzzAppendString: AppendString and AppendBytes write what Marshal and
// Bytes write, for any bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a<b>&c", "line\n\t\r\b\f\x00\x1f\x7f", `q"b\`, "caf\u00e9", "\u2028\u2029", "n\xff", "\xe2\x80", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s; want x%s", s, got, want)
		}
		want, _ = Bytes([]byte(s))
		if got := AppendBytes(nil, []byte(s)); string(got) != string(want) {
			t.Fatalf("AppendBytes(%q) = %s; want %s", s, got, want)
		}
	})
}

func TestSkipSpace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want int
	}{
		{"", 0, 0},
		{" \t\r\n1", 0, 4},
		{"1 ", 0, 0},
		{"[ \n]", 1, 3},
		{"  ", 1, 2},
		{"\v1", 0, 0}, // not JSON whitespace
	} {
		if got := SkipSpace([]byte(tc.in), tc.i); got != tc.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
		}
	}
}

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want int
	}{
		{`""`, 0, 2},
		{`"ab",1`, 0, 4},
		{`"a\"b"`, 0, 6},
		{`"a\\"b"`, 0, 5},
		{`"a\\\"b"`, 0, 8},
		{`["x","y"]`, 5, 8},
		{`"\\"`, 0, 4},
		{`"open`, 0, 5},
	} {
		if got := StringEnd([]byte(tc.in), tc.i); got != tc.want {
			t.Errorf("StringEnd(%s, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
		}
	}
}
