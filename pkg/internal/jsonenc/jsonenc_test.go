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
