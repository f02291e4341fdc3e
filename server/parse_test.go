package server

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

func TestParseBoardMembers(t *testing.T) {
	tests := []struct {
		body    string
		atomic  bool
		preview bool
		problem string
	}{
		{`{"code":"return 1"}`, true, false, ""},
		{`{"code":"return 1","atomic":false}`, false, false, ""},
		{`{"atomic":true,"code":"return 1"}`, true, false, ""},
		{`{"code":"return 1","atomic":null}`, true, false, ""},
		{` {"atomic" : false , "code":"return 1"} `, false, false, ""},
		{`{"code":"return 1","preview":true}`, true, true, ""},
		{`{"preview":true,"atomic":false,"code":"return 1"}`, false, true, ""},
		{`{"code":"return 1","preview":null}`, true, false, ""},
		{`{"code":"return 1","atomic":0}`, false, false, "atomic: want true or false, got the number 0"},
		{`{"code":"return 1","atomic":false,"atomic":false,"atomic":true}`, false, false, "atomic: given 3 times"},
		{`{"code":"return 1","preview":"yes"}`, false, false, "preview: want true or false"},
		{`{"code":"return 1","preview":true,"preview":true}`, false, false, "preview: given twice"},
		{`{"code":"return 1","Atomic":false}`, false, false, `Atomic: unknown field (did you mean "atomic"?)`},
		{`{"code":"return 1","previw":true}`, false, false, `previw: unknown field (did you mean "preview"?)`},
		{`{"code":"return 1","code":"return 2"}`, false, false, "code: given twice"},
		{`{"code":"return 1",}`, false, false, "malformed JSON at line 1, column 20"},
		{`"atomic"`, false, false, "want an object"},
	}
	for _, tt := range tests {
		spec, herr := parseRun(engine.RunScript, []byte(tt.body), true)
		if tt.problem == "" {
			if herr != nil || spec.atomic != tt.atomic || spec.preview != tt.preview || spec.exec.Code != "return 1" {
				t.Errorf("%s: %+v %v", tt.body, spec, herr)
			}
			continue
		}
		if herr == nil || herr.status != 400 || !strings.Contains(herr.err.Message, tt.problem) {
			t.Errorf("%s: %v, want %q", tt.body, herr, tt.problem)
		}
	}
}
