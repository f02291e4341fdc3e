package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRun checks what the program prints, which README.md shows.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := `batch:
  0 weather          ok     {"city":"Lisbon","celsius":21.5}
  1 createStickyNote ok     {"id":"sticky-1","x":0,"y":0,"width":200,"height":200}
  2 deleteObject     denied call of "deleteObject" was denied: deleting is not allowed here
script: success true, result "sticky-2", 2 tool calls
model: 16 tools offered
  call_1 weather: {"city":"Faro","celsius":21.5}
  call_2 execute_code: {"success":true,"result":2}
board: {"objects":[{"id":"sticky-1","type":"sticky","x":0,"y":0,"width":200,"height":200,"text":"Lisbon","color":"yellow"},{"id":"sticky-2","type":"sticky","x":220,"y":0,"width":200,"height":200,"text":"Porto: 21.5 °C","color":"yellow"}]}
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
