package defs

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// BatchOptions shape the batch meta-tool's schema and description.
type BatchOptions struct {
	// MaxOperations is the engine's maxOperations: the schema's maxItems and
	// the limit the description names. 0 leaves the count unbounded.
	MaxOperations int
	// MaxUnionTools and MaxUnionBytes bound the union form (see BatchSchema):
	// above either, "args" is a plain object. 0 turns the union form off.
	MaxUnionTools int
	// MaxUnionBytes bounds the tools' input schemas' total compact size.
	MaxUnionBytes int
}

// Defaults: a union of 40 tools of ~1 KiB each is about what a model's tool
// list costs anyway; beyond that, repeating every schema inside batch
// doubles the prompt for little gain.
const (
	DefaultMaxOperations = 100
	DefaultMaxUnionTools = 40
	DefaultMaxUnionBytes = 48 << 10
)

// DefaultBatchOptions returns the default limits (docs/batch.md).
func DefaultBatchOptions() BatchOptions {
	return BatchOptions{MaxOperations: DefaultMaxOperations, MaxUnionTools: DefaultMaxUnionTools, MaxUnionBytes: DefaultMaxUnionBytes}
}

// Names of the batch schema's own definitions. They have no dot; hoisted
// tool definitions always have one (see namer).
const (
	refDef   = "ref"
	labelDef = "label"
)

// BatchSchema returns the input schema of the batch meta-tool for tools, the
// real tools a batch may call (a tool named like a meta-tool is the caller's
// business: the engine rejects recursion at run time).
//
// "tool" is always constrained to the tools' names, so a model under strict
// decoding cannot misspell one. While the tool set is small (opt's
// MaxUnionTools and MaxUnionBytes), each operation is an anyOf with one
// branch per tool whose "args" is that tool's own input schema, so arguments
// are checked per tool; otherwise "args" is any object.
//
// A {"$ref": "label.path"} placeholder may stand anywhere in args at run
// time, but a schema cannot say "or a placeholder" everywhere without
// doubling every subschema. The union form allows it for the top-level
// properties of args only (each becomes anyOf [P, #/$defs/ref]); a nested
// placeholder, or one at a place the tool declares through allOf/oneOf or
// patternProperties rather than properties, fails the union schema though
// the engine would accept it. Path segments in the placeholder are limited
// to [A-Za-z0-9_-].
func BatchSchema(tools []Tool, opt BatchOptions) (json.RawMessage, error) {
	if len(tools) == 0 {
		return nil, fmt.Errorf("batch schema: no tools")
	}
	names := make([]any, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	size := 0
	for _, t := range tools {
		if !ValidName(t.Name) {
			return nil, fmt.Errorf("batch schema: tool name %q: want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots", t.Name)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("batch schema: tool %q appears twice", t.Name)
		}
		seen[t.Name] = true
		names = append(names, t.Name)
		var c bytes.Buffer
		if err := json.Compact(&c, t.InputSchema); err != nil {
			return nil, fmt.Errorf("batch schema: tool %q: input schema: %v", t.Name, err)
		}
		size += c.Len()
	}

	label := obj("type", "string", "pattern", "^[A-Za-z_][A-Za-z0-9_-]*$",
		"description", `Names this operation's result for {"$ref":"label.path"} in later operations.`)
	defs := &object{}
	var item any
	if len(tools) <= opt.MaxUnionTools && size <= opt.MaxUnionBytes {
		defs.set(labelDef, label) // shared by every branch
		u, err := unionItem(tools, defs)
		if err != nil {
			return nil, err
		}
		item = u
	} else {
		item = obj(
			"type", "object",
			"properties", obj(
				"tool", obj("type", "string", "enum", names),
				"args", obj("type", "object", "description", `The tool's arguments, following that tool's own input schema; {"$ref":"label.path"} may stand for any value.`),
				"label", label,
			),
			"required", []any{"tool", "args"},
			"additionalProperties", false,
		)
	}

	ops := obj("type", "array", "minItems", 1)
	if opt.MaxOperations > 0 {
		ops.set("maxItems", opt.MaxOperations)
	}
	ops.set("items", item)
	limit := func(desc string) *object { return obj("type", "integer", "minimum", 1, "description", desc) }
	root := obj(
		"type", "object",
		"properties", obj(
			"operations", ops,
			"executionMode", obj("type", "string", "enum", []any{"parallel", "sequential"}, "default", "parallel",
				"description", "parallel runs independent operations concurrently (one that references another waits for it); sequential runs them in order."),
			"stopOnError", obj("type", "boolean", "default", false,
				"description", "After the first failure, skip the operations not yet started."),
			"timeout", obj("type", "integer", "minimum", 1, "description", "Timeout for the whole batch, in milliseconds."),
			"safetyLimits", obj(
				"type", "object",
				"description", "Optional tighter limits for this batch; the server's own limits still apply.",
				"properties", obj(
					"maxOperations", limit("Most operations allowed."),
					"maxAggregateChars", limit("Most characters of all results together."),
					"maxConcurrency", limit("Most operations running at once."),
					"maxResultChars", limit("Most characters of one result."),
				),
				"additionalProperties", false,
			),
		),
		"required", []any{"operations"},
		"additionalProperties", false,
	)
	if len(defs.members) > 0 {
		root.set("$defs", defs)
	}
	return marshal(root)
}

// unionItem builds the per-tool anyOf and adds to defs the placeholder
// definition, when used, and the tools' hoisted definitions.
func unionItem(tools []Tool, defs *object) (*object, error) {
	names := namer{refDef: true, labelDef: true}
	var hoisted []member
	placeholder := false
	branches := make([]any, 0, len(tools))
	for _, t := range tools {
		e, err := embed(t, names)
		if err != nil {
			return nil, fmt.Errorf("batch schema: %v", err)
		}
		if p, ok := e.args.get("properties"); ok {
			if po, ok := p.(*object); ok {
				for i, m := range po.members {
					po.members[i].val = obj("anyOf", []any{m.val, obj("$ref", "#/$defs/"+refDef)})
					placeholder = true
				}
			}
		}
		hoisted = append(hoisted, e.defs...)
		branches = append(branches, obj(
			"type", "object",
			"properties", obj(
				"tool", obj("type", "string", "const", t.Name),
				"args", e.args,
				"label", obj("$ref", "#/$defs/"+labelDef),
			),
			"required", []any{"tool", "args"},
			"additionalProperties", false,
		))
	}
	if placeholder {
		defs.set(refDef, obj(
			"type", "object",
			"description", `The value at a path in a labelled earlier operation's result.`,
			"properties", obj("$ref", obj("type", "string", "pattern", `^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)),
			"required", []any{"$ref"},
			"additionalProperties", false,
		))
	}
	defs.members = append(defs.members, hoisted...)
	return obj("anyOf", branches), nil
}
