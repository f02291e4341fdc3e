package bindings

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine"
)

// Option adjusts a tool made by Func.
type Option func(*engine.Tool)

// ReadOnly marks the tool read-only (and idempotent, and not destructive): the
// default approval policy runs it without asking.
func ReadOnly() Option {
	return func(t *engine.Tool) {
		t.Annotations.ReadOnlyHint = true
		t.Annotations.IdempotentHint = true
		t.Annotations.DestructiveHint = engine.Bool(false)
	}
}

// Destructive sets the destructive hint.
func Destructive(v bool) Option {
	return func(t *engine.Tool) { t.Annotations.DestructiveHint = engine.Bool(v) }
}

// Idempotent sets the idempotent hint.
func Idempotent() Option {
	return func(t *engine.Tool) { t.Annotations.IdempotentHint = true }
}

// OpenWorld sets the open-world hint.
func OpenWorld(v bool) Option {
	return func(t *engine.Tool) { t.Annotations.OpenWorldHint = engine.Bool(v) }
}

// Title sets the human-readable title annotation.
func Title(title string) Option {
	return func(t *engine.Tool) { t.Annotations.Title = title }
}

// Annotations replaces all annotations.
func Annotations(a engine.Annotations) Option {
	return func(t *engine.Tool) { t.Annotations = a }
}

// Func makes a tool from a typed Go function. In must be a struct (or a
// pointer to one, or map[string]T): its reflected schema is the tool's input
// schema, with fields required unless tagged omitempty. Out's schema becomes
// the output schema when Out is a struct. Use jsonschema struct tags
// (enum=…, minimum=…, default=…) to constrain fields, and the separate
// jsonschema_description tag for descriptions: invopop splits the jsonschema
// tag at commas, so a description=… with a comma would be cut short.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...Option) (engine.Tool, error) {
	in, err := SchemaFor[In]()
	if err != nil {
		return engine.Tool{}, fmt.Errorf("tool %q: input: %w", name, err)
	}
	if !isObjectSchema(in) {
		return engine.Tool{}, fmt.Errorf("tool %q: input type must be a struct or a map with string keys", name)
	}
	out, err := SchemaFor[Out]()
	if err != nil {
		return engine.Tool{}, fmt.Errorf("tool %q: output: %w", name, err)
	}
	if !isObjectSchema(out) {
		out = nil // only object results get an outputSchema, as MCP requires
	}
	t := engine.Tool{
		Name:         name,
		Description:  description,
		InputSchema:  in,
		OutputSchema: out,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var v In
			if len(args) > 0 {
				if err := json.Unmarshal(args, &v); err != nil {
					return nil, engine.Errorf(engine.CodeInvalidArgs, "cannot decode arguments: %v", err)
				}
			}
			res, err := fn(ctx, v)
			if err != nil {
				return nil, err
			}
			return json.Marshal(res)
		},
	}
	for _, o := range opts {
		o(&t)
	}
	return t, nil
}

// MustFunc is Func for tool sets whose types are fixed at compile time: it
// panics if the types cannot be reflected into schemas.
func MustFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...Option) engine.Tool {
	t, err := Func(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

func isObjectSchema(doc json.RawMessage) bool {
	var root struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(doc, &root) == nil && root.Type == "object"
}
