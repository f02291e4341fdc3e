package server

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

func TestParseAtomic(t *testing.T) {
	tests := []struct {
		body    string
		atomic  bool
		problem string
	}{
		{`{"code":"return 1"}`, true, ""},
		{`{"code":"return 1","atomic":false}`, false, ""},
		{`{"atomic":true,"code":"return 1"}`, true, ""},
		{`{"code":"return 1","atomic":null}`, true, ""},
		{` {"atomic" : false , "code":"return 1"} `, false, ""},
		{`{"code":"return 1","atomic":0}`, false, "atomic: want true or false, got the number 0"},
		{`{"code":"return 1","atomic":false,"atomic":false,"atomic":true}`, false, "atomic: given 3 times"},
		{`{"code":"return 1","Atomic":false}`, false, `Atomic: unknown field (did you mean "atomic"?)`},
		{`{"code":"return 1","code":"return 2"}`, false, "code: given twice"},
		{`{"code":"return 1",}`, false, "malformed JSON at line 1, column 20"},
		{`"atomic"`, false, "want an object"},
	}
	for _, tt := range tests {
		spec, herr := parseRun(engine.RunScript, []byte(tt.body), true)
		if tt.problem == "" {
			if herr != nil || spec.atomic != tt.atomic || spec.exec.Code != "return 1" {
				t.Errorf("%s: %+v %v", tt.body, spec, herr)
			}
			continue
		}
		if herr == nil || herr.status != 400 || !strings.Contains(herr.err.Message, tt.problem) {
			t.Errorf("%s: %v, want %q", tt.body, herr, tt.problem)
		}
	}
}
