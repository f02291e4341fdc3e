package bindings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
)

type AddArgs struct {
	A float64 `json:"a" jsonschema_description:"The first addend."`
	B float64 `json:"b" jsonschema_description:"The second addend."`
}

// A typed tool: the input schema comes from AddArgs, the handler decodes the
// arguments into it and encodes the sum.
func ExampleFunc() {
	add, err := bindings.Func("add", "Add two numbers.",
		func(ctx context.Context, in AddArgs) (float64, error) { return in.A + in.B, nil },
		bindings.ReadOnly())
	if err != nil {
		panic(err)
	}
	eng, err := engine.NewBuilder().Add(add).Build()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	out, err := eng.Call(ctx, "add", json.RawMessage(`{"a":2,"b":3}`))
	fmt.Println(string(out), err)

	// Arguments are checked against the reflected schema first.
	_, err = eng.Call(ctx, "add", json.RawMessage(`{"a":2}`))
	fmt.Println(err)
	// Output:
	// 5 <nil>
	// invalid_args: invalid arguments for "add": missing property 'b'
}

type Place struct {
	Name  string  `json:"name" jsonschema_description:"Display name, as shown on the map."`
	Coord LatLong `json:"coord"`
	Kind  string  `json:"kind,omitempty" jsonschema:"enum=city,enum=park"`
}

type LatLong struct {
	Lat  float64 `json:"lat" jsonschema:"minimum=-90,maximum=90"`
	Long float64 `json:"long"`
}

// The root is Place's own schema, not a $ref; the nested LatLong is kept
// under $defs. Fields without omitempty are required.
func ExampleSchemaFor() {
	s, err := bindings.SchemaFor[Place]()
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, s, "", "  "); err != nil {
		panic(err)
	}
	fmt.Println(b.String())
	// Output:
	// {
	//   "$defs": {
	//     "LatLong": {
	//       "properties": {
	//         "lat": {
	//           "type": "number",
	//           "maximum": 90,
	//           "minimum": -90
	//         },
	//         "long": {
	//           "type": "number"
	//         }
	//       },
	//       "additionalProperties": false,
	//       "type": "object",
	//       "required": [
	//         "lat",
	//         "long"
	//       ]
	//     }
	//   },
	//   "properties": {
	//     "name": {
	//       "type": "string",
	//       "description": "Display name, as shown on the map."
	//     },
	//     "coord": {
	//       "$ref": "#/$defs/LatLong"
	//     },
	//     "kind": {
	//       "type": "string",
	//       "enum": [
	//         "city",
	//         "park"
	//       ]
	//     }
	//   },
	//   "additionalProperties": false,
	//   "type": "object",
	//   "required": [
	//     "name",
	//     "coord"
	//   ]
	// }
}
