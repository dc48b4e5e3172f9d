package render

import (
	"bytes"
	"errors"
	"testing"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/workspace"
)

type res struct {
	Value int `json:"value"`
	text  string
}

func (r *res) Text() string { return r.text }

type dataErr struct{ error }

func (dataErr) ErrorData() any { return map[string]int{"size": 20} }

func TestResult(t *testing.T) {
	tests := []struct {
		name           string
		json           bool
		res            workspace.Result
		err            error
		stdout, stderr string
	}{
		{"text", false, &res{1, "hello"}, nil, "hello\n", ""},
		{"text keeps a final newline of its own and adds one", false, &res{1, "hi\n"}, nil, "hi\n\n", ""},
		{"failure", false, nil, errs.FileNotFound("x", nil), "", "ws: File not found: x\n"},
		{"json", true, &res{7, "out <&>"}, nil,
			`{"ok":true,"tool":"t","output":"out <&>","error":null,"data":{"value":7}}` + "\n", ""},
		{"json failure", true, nil, &errs.Error{Code: errs.NotUnique, Message: "twice"},
			`{"ok":false,"tool":"t","output":"twice","error":{"code":"NOT_UNIQUE","message":"twice"},"data":null}` + "\n", ""},
		{"json failure with data", true, nil, &errs.Error{Code: "FILE_TOO_LARGE", Message: "big", Err: dataErr{errors.New("x")}},
			`{"ok":false,"tool":"t","output":"big","error":{"code":"FILE_TOO_LARGE","message":"big"},"data":{"size":20}}` + "\n", ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if err := Result(&IO{Out: &out, Err: &errb}, tt.json, "t", tt.res, tt.err); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.stdout || errb.String() != tt.stderr {
			t.Errorf("%s: stdout %q stderr %q, want %q %q", tt.name, out.String(), errb.String(), tt.stdout, tt.stderr)
		}
	}
}
