package engine_test

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// An invalid_args error names each violation's place the same way in its
// details and its message: a JSON pointer, "" for the root of the args, which
// the message then leaves out (it used to print "/", which as a pointer is
// the member named "").
func TestInvalidArgsRootPath(t *testing.T) {
	e := build(t, newFixture(t))
	_, err := e.Call(t.Context(), "shape", []byte(`{"title":"","kind":"box","extra":1}`))
	ee, ok := err.(*engine.Error)
	if !ok || ee.Code != engine.CodeInvalidArgs {
		t.Fatalf("got %v, want invalid_args", err)
	}
	want := []engine.Violation{
		{Path: "", Message: "missing property 'points'"},
		{Path: "", Message: "additional properties 'extra' not allowed"},
		{Path: "/title", Message: "minLength: got 0, want 1"},
	}
	if diff := cmp.Diff(want, ee.Details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	const msg = `invalid arguments for "shape": missing property 'points'; additional properties 'extra' not allowed; /title: minLength: got 0, want 1`
	if ee.Message != msg {
		t.Errorf("message\n%s\nwant\n%s", ee.Message, msg)
	}
	if strings.Contains(ee.Message, "/:") {
		t.Errorf("message names the root as \"/\": %s", ee.Message)
	}
}
