package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	want := `0 weather          ok    {"city":"Lisbon","celsius":21.5}
1 createStickyNote ok    {"id":"sticky-1","x":0,"y":0,"width":200,"height":200}
2 deleteObject     denied call of "deleteObject" was denied: deleting is not allowed here
board: {"objects":[{"id":"sticky-1","type":"sticky","x":0,"y":0,"width":200,"height":200,"text":"Lisbon","color":"yellow"}]}
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
