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

// TestScanEnds: where SkipSpace, StringEnd and ValueEnd stop in in,
// from i. ValueEnd: brackets and quotes inside strings not counted, and
// text that does not end running to the end.
func TestScanEnds(t *testing.T) {
	type pos struct {
		in      string
		i, want int
	}
	for _, fc := range []struct {
		name  string
		fn    func([]byte, int) int
		cases []pos
	}{{
		name: "SkipSpace", fn: SkipSpace,
		cases: []pos{
			{"", 0, 0},
			{" \t\r\n1", 0, 4},
			{"1 ", 0, 0},
			{"[ \n]", 1, 3},
			{"  ", 1, 2},
			{"\v1", 0, 0}, // not JSON whitespace
		},
	}, {
		name: "StringEnd", fn: StringEnd,
		cases: []pos{
			{`""`, 0, 2},
			{`"ab",1`, 0, 4},
			{`"a\"b"`, 0, 6},
			{`"a\\"b"`, 0, 5},
			{`"a\\\"b"`, 0, 8},
			{`["x","y"]`, 5, 8},
			{`"\\"`, 0, 4},
			{`"open`, 0, 5},
		},
	}, {
		name: "ValueEnd", fn: ValueEnd,
		cases: []pos{
			{`"a\"]}" ,`, 0, 7}, {`[1,"]",{"a":[2]}] x`, 0, 17}, {`{"k":"\\"} ,`, 0, 10}, {`12.5e3,`, 0, 6},
			{`true}`, 0, 4}, {`null`, 0, 4}, {`[[[`, 0, 3}, {`"open`, 0, 5}, {`[["]]"`, 0, 6},
		},
	}} {
		t.Run(fc.name, func(t *testing.T) {
			for _, tc := range fc.cases {
				if got := fc.fn([]byte(tc.in), tc.i); got != tc.want {
					t.Errorf("%s(%q, %d) = %d, want %d", fc.name, tc.in, tc.i, got, tc.want)
				}
			}
		})
	}
}

// TestNest: the depth after each bracket outside strings, and where a
// walk stopped.
func TestNest(t *testing.T) {
	var depths []int
	end := Nest([]byte(`{"a[":[1,{"b}":2}],"c":3} [`), 0, func(d int) bool { depths = append(depths, d); return d < 3 })
	if want := []int{1, 2, 3}; end != 9 || len(depths) != 3 || depths[0] != 1 || depths[2] != 3 {
		t.Errorf("Nest stopped at %d with depths %v, want 9 and %v", end, depths, want)
	}
	if end := Nest([]byte(`[["x"]]`), 0, func(int) bool { return true }); end != 7 {
		t.Errorf("a walk that never stops ends at %d, want 7", end)
	}
}
