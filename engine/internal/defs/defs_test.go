package defs

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const goldenDir = "../../../testdata/defs"

// golden compares got (JSON is indented first) with testdata/defs/name, or
// rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if json.Valid(got) {
		var b bytes.Buffer
		if err := json.Indent(&b, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		got = b.Bytes()
	}
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

// Fixtures: two whiteboard tools as invopop/jsonschema reflects them, and a
// namespaced tool whose schema uses $defs.
const colorPattern = `^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$`

var (
	createFrame = Tool{
		Name:        "createFrame",
		Description: "Create a titled frame, a container that groups objects.",
		InputSchema: json.RawMessage(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"properties": {
				"title": {"type": "string", "description": "The frame's title."},
				"x": {"type": "number", "description": "Left edge in absolute board coordinates."},
				"y": {"type": "number", "description": "Top edge in absolute board coordinates; y grows downwards."},
				"width": {"type": "number", "exclusiveMinimum": 0, "description": "Width in board units."},
				"height": {"type": "number", "exclusiveMinimum": 0, "description": "Height in board units."},
				"color": {"type": "string", "pattern": "` + colorPattern + `", "description": "A named color or #rrggbb."}
			},
			"additionalProperties": false,
			"required": ["title", "x", "y", "width", "height"]
		}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations:  json.RawMessage(`{"title":"Create frame","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false}`),
	}
	createStickyNote = Tool{
		Name:        "createStickyNote",
		Description: "Create a sticky note and return its id and geometry.",
		InputSchema: json.RawMessage(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"properties": {
				"text": {"type": "string", "description": "The note's text."},
				"x": {"type": "number", "description": "Left edge in absolute board coordinates."},
				"y": {"type": "number", "description": "Top edge in absolute board coordinates."},
				"color": {"type": "string", "default": "yellow", "pattern": "` + colorPattern + `"},
				"width": {"type": "number", "default": 200, "exclusiveMinimum": 0},
				"height": {"type": "number", "default": 200, "exclusiveMinimum": 0},
				"parentId": {"type": "string", "description": "Id of a frame to put the note in."}
			},
			"additionalProperties": false,
			"required": ["text", "x", "y"]
		}`),
	}
	arrange = Tool{
		Name:        "board.arrange",
		Description: "Move objects to points.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"moves": {"type": "array", "items": {"$ref": "#/$defs/Move"}}
			},
			"required": ["moves"],
			"additionalProperties": false,
			"$defs": {
				"Move": {"type": "object", "properties": {"objectId": {"type": "string"}, "to": {"$ref": "#/$defs/Point"}},
				         "required": ["objectId", "to"], "additionalProperties": false},
				"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
				          "required": ["x", "y"], "additionalProperties": false}
			}
		}`),
		Annotations: json.RawMessage(`null`),
	}
)

// A request like the example of docs/batch.md.
const exampleRequest = `{
  "operations": [
    {"tool": "createFrame", "args": {"title": "Retro", "x": 0, "y": 0, "width": 900, "height": 600}, "label": "frame"},
    {"tool": "createStickyNote", "args": {"text": "Went well", "x": 20, "y": 60, "parentId": {"$ref": "frame.id"}}}
  ],
  "executionMode": "parallel",
  "stopOnError": false,
  "timeout": 30000,
  "safetyLimits": {"maxOperations": 50, "maxAggregateChars": 200000, "maxConcurrency": 8}
}`
