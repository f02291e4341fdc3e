// Package bindings turns Go functions into codemode tools (schemas reflected
// from Go structs with invopop/jsonschema).
//
// The raw way to make a tool is an [engine.Tool] literal with a JSON schema and
// an [engine.Handler]. [Func] is the typed way on top of it:
//
//	type AddArgs struct {
//		A float64 `json:"a" jsonschema_description:"The first addend."`
//		B float64 `json:"b"`
//	}
//	add := bindings.MustFunc("add", "Add two numbers.",
//		func(ctx context.Context, in AddArgs) (float64, error) { return in.A + in.B, nil },
//		bindings.ReadOnly())
package bindings
