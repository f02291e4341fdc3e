package guest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type point struct {
	X    float64  `json:"x"`
	Tags []string `json:"tags"`
	N    *int     `json:"n"`
}

type sum struct {
	Total float64 `json:"total"`
	Note  string  `json:"note,omitempty"`
}

var add = Typed(func(p point) (sum, error) {
	if p.X < 0 {
		return sum{}, errors.New("x: must not be negative,\ngot a negative number")
	}
	return sum{Total: p.X + 1, Note: "<ok>"}, nil
})

// call runs h through run with the given stdin.
func call(h Handler, stdin string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(h, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	type result struct {
		Code           int
		Stdout, Stderr string
	}
	tests := []struct {
		name  string
		h     Handler
		stdin string
		want  result
	}{
		{"ok", add, `{"x": 1}`, result{0, "{\"total\":2,\"note\":\"<ok>\"}\n", ""}},
		{"ok with spaces", add, " \n{\"x\":2}\n ", result{0, "{\"total\":3,\"note\":\"<ok>\"}\n", ""}},
		{"handler error on one line", add, `{"x":-1}`, result{1, "", "x: must not be negative, got a negative number\n"}},
		{"empty", add, "", result{1, "", "invalid arguments: no input, want a JSON object\n"}},
		{"null", add, "null", result{1, "", "invalid arguments: got null, want a JSON object\n"}},
		{"unknown field", add, `{"x":1,"y":2}`, result{1, "", "invalid arguments: unknown field \"y\"\n"}},
		{"wrong type", add, `{"x":"1"}`, result{1, "", "invalid arguments: x: got string, want number\n"}},
		{"wrong nested type", add, `{"tags":[1]}`, result{1, "", "invalid arguments: tags: got number, want string\n"}},
		{"not an integer", add, `{"n":1.5}`, result{1, "", "invalid arguments: n: got number 1.5, want integer\n"}},
		{"not an object", add, `[1]`, result{1, "", "invalid arguments: the arguments: got array, want object\n"}},
		{"trailing data", add, `{"x":1} {}`, result{1, "", "invalid arguments: trailing data after the JSON value\n"}},
		{"truncated", add, `{"x":`, result{1, "", "invalid arguments: truncated JSON\n"}},
		{"raw handler", func(args []byte) (any, error) { return string(args), nil }, `[1]`, result{0, "\"[1]\"\n", ""}},
		{"nil result", func([]byte) (any, error) { return nil, nil }, `{}`, result{0, "null\n", ""}},
		{"empty message", func([]byte) (any, error) { return nil, errors.New(" ") }, `{}`, result{1, "", "tool failed\n"}},
		{"panic", func([]byte) (any, error) { panic("boom") }, `{}`, result{2, "", "internal error: boom\n"}},
		{"unencodable", func([]byte) (any, error) { return func() {}, nil }, `{}`, result{2, "", "internal error: encoding the result: json: unsupported type: func()\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(tt.h, tt.stdin)
			if diff := cmp.Diff(tt.want, result{code, out, errs}); diff != "" {
				t.Errorf("run(%q) (-want +got):\n%s", tt.stdin, diff)
			}
		})
	}
}

func TestRunTooLarge(t *testing.T) {
	called := false
	h := func([]byte) (any, error) { called = true; return nil, nil }
	code, _, errs := call(h, strings.Repeat(" ", MaxArgs+1))
	if code != 1 || errs != "arguments larger than 16 MiB\n" || called {
		t.Errorf("got code %d, stderr %q, handler called %v", code, errs, called)
	}
}

// A reused instance calls run again with fresh stdin: nothing carries over.
func TestRunNoState(t *testing.T) {
	for i, in := range []string{`{"x":1}`, `{"x":-1}`, `{"x":5}`} {
		code, out, _ := call(add, in)
		want := []int{0, 1, 0}[i]
		if code != want {
			t.Errorf("call %d: code %d, want %d (stdout %q)", i, code, want, out)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestRunWriteError(t *testing.T) {
	var errb bytes.Buffer
	code := run(add, strings.NewReader(`{"x":1}`), failWriter{}, &errb)
	if code != 1 || errb.String() != "writing the result: closed\n" {
		t.Errorf("got code %d, stderr %q", code, errb.String())
	}
}
