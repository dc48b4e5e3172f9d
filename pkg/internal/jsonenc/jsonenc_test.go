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
