package defs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine/internal/defs/strictcheck"
	"github.com/codemode-dev/codemode/engine/internal/schema"
	"github.com/google/go-cmp/cmp"
)

// Schemas that have a strict form, each with something strict mode wants
// rewritten.
var strictable = map[string]string{
	"optional members, defaults, constraints it keeps": string(createStickyNote.InputSchema),
	"nested optional object, array of objects": `{"type":"object","properties":{
		"title":{"type":"string"},
		"meta":{"type":"object","properties":{"author":{"type":"string"},"year":{"type":"integer","minimum":0}},"required":["author"]},
		"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"string"}},"required":["k"],"additionalProperties":false},"maxItems":5}},
		"required":["title"],"additionalProperties":false}`,
	"optional enum, const and boolean": `{"type":"object","properties":{
		"mode":{"type":"string","enum":["a","b"],"description":"The mode"},
		"kind":{"const":"fixed"},
		"flag":{"type":"boolean","default":false}},"additionalProperties":false}`,
	"refs with descriptions, required and optional": `{"type":"object","properties":{
		"from":{"$ref":"#/$defs/Point","description":"Start."},
		"to":{"$ref":"#/$defs/Point","description":"End."}},
		"required":["from"],"additionalProperties":false,
		"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}}}`,
	"oneOf, dropped and kept constraints, unknown keywords": `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"T","type":"object","properties":{
		"id":{"oneOf":[{"type":"string","minLength":1,"maxLength":80},{"type":"integer"}]},
		"site":{"type":"string","format":"uri","x-extra":true},
		"mail":{"type":"string","format":"email","examples":["a@b.c"]},
		"ids":{"type":"array","items":{"type":"string"},"uniqueItems":true}},
		"required":["id","site","mail","ids"],"additionalProperties":false}`,
	"recursion through the root, draft-07 definitions, untyped object": `{"type":"object","properties":{
		"value":{"type":"string"},
		"children":{"type":"array","items":{"$ref":"#"}},
		"extra":{"$ref":"#/definitions/Extra"}},
		"required":["value","children"],
		"definitions":{"Extra":{"properties":{"note":{"type":"string"}}}}}`,
}

func strictBatch(t *testing.T) json.RawMessage {
	t.Helper()
	doc, err := BatchSchema(boardTools, unionOpts)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestStrictFormFollowsOpenAIRules: every strict form passes the checker
// written from OpenAI's documented rules, and still compiles as JSON Schema.
// The originals do not pass it: that is what the rewrite is for.
func TestStrictFormFollowsOpenAIRules(t *testing.T) {
	cases := map[string]string{"batch meta-tool, union form": string(strictBatch(t))}
	for k, v := range strictable {
		cases[k] = v
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if len(strictcheck.Check(json.RawMessage(src))) == 0 {
				t.Errorf("the original already passes the checker; the case shows nothing")
			}
			s := Strict(json.RawMessage(src))
			if s.Reason != "" {
				t.Fatalf("no strict form: %s", s.Reason)
			}
			if problems := strictcheck.Check(s.Schema); len(problems) > 0 {
				t.Errorf("the strict form breaks strict mode's rules:\n%s\n%s", strings.Join(problems, "\n"), s.Schema)
			}
			if _, err := schema.Compile(s.Schema); err != nil {
				t.Errorf("the strict form does not compile: %v", err)
			}
		})
	}
}

func TestStrictBatchGolden(t *testing.T) {
	s := Strict(strictBatch(t))
	if s.Reason != "" {
		t.Fatal(s.Reason)
	}
	golden(t, "batch_union_strict.json", s.Schema)
}

// TestStrictNotes: what the rewrite drops is named where a model reads it.
func TestStrictNotes(t *testing.T) {
	s := Strict(json.RawMessage(strictable["oneOf, dropped and kept constraints, unknown keywords"]))
	for _, want := range []string{`Constraints: minLength 1, maxLength 80.`, `Constraints: format \"uri\".`, `Constraints: uniqueItems true.`, `"format":"email"`, `"anyOf":[`} {
		if !strings.Contains(string(s.Schema), want) {
			t.Errorf("strict form lacks %s:\n%s", want, s.Schema)
		}
	}
	for _, gone := range []string{"$schema", `"title"`, "x-extra", "examples", "oneOf", "minLength"} {
		if strings.Contains(string(s.Schema), `"`+strings.Trim(gone, `"`)+`":`) {
			t.Errorf("strict form keeps %s:\n%s", gone, s.Schema)
		}
	}
	s = Strict(createStickyNote.InputSchema)
	if !strings.Contains(string(s.Schema), `"Optional: null leaves it out (default \"yellow\")."`) {
		t.Errorf("an optional member's default is not named:\n%s", s.Schema)
	}
}

func manyProps(n int, nameLen int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("p%d", i)
		name += strings.Repeat("x", max(0, nameLen-len(name)))
		fmt.Fprintf(&b, `%q:{"type":"string"}`, name)
	}
	b.WriteString(`},"additionalProperties":false}`)
	return b.String()
}

// nested is an object schema with levels levels of object nesting.
func nested(levels int) string {
	s := `{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}`
	for range levels - 1 {
		s = `{"type":"object","properties":{"in":` + s + `},"required":["in"],"additionalProperties":false}`
	}
	return s
}

func enumOf(n, valueLen int) string {
	vals := make([]string, n)
	for i := range vals {
		v := fmt.Sprintf("v%d", i)
		vals[i] = fmt.Sprintf("%q", v+strings.Repeat("x", max(0, valueLen-len(v))))
	}
	return `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.Join(vals, ",") + `]}},"required":["e"],"additionalProperties":false}`
}

// TestStrictImpossible: a schema strict mode cannot express gets no strict
// form, and the reason names each place and what is wrong there.
func TestStrictImpossible(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         []string
	}{
		{"any object", `{"type":"object"}`, []string{"the root: an object without properties admits any members"}},
		{"open additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`, []string{"the root: additionalProperties admits members"}},
		{"map", `{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}},"additionalProperties":false}`, []string{"/properties/tags: additionalProperties admits members"}},
		{"patternProperties", `{"type":"object","properties":{},"patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`, []string{"the root: patternProperties has no strict form"}},
		{"allOf", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":2}]}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a: allOf has no strict form"}},
		{"optional that takes null", `{"type":"object","properties":{"c":{"type":["string","null"]}},"additionalProperties":false}`, []string{"/properties/c: is optional and accepts null"}},
		{"optional ref that takes null", `{"type":"object","properties":{"c":{"$ref":"#/$defs/N"}},"additionalProperties":false,"$defs":{"N":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, []string{"/properties/c: is optional and accepts null"}},
		{"any value (execute_code)", ExecuteCodeSchema, []string{"/properties/input: accepts any JSON value"}},
		{"true schema", `{"type":"object","properties":{"a":true},"required":["a"],"additionalProperties":false}`, []string{"/properties/a: accepts any JSON value"}},
		{"tuple", `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"number"},{"type":"number"}]}},"required":["p"],"additionalProperties":false}`, []string{"/properties/p: a tuple"}},
		{"array of anything", `{"type":"object","properties":{"p":{"type":"array"}},"required":["p"],"additionalProperties":false}`, []string{"/properties/p: an array without items"}},
		{"root anyOf", `{"anyOf":[{"type":"object","properties":{},"additionalProperties":false}]}`, []string{"the root: is an anyOf"}},
		{"root ref", `{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{},"additionalProperties":false}}}`, []string{"the root: is a $ref"}},
		{"several types", `{"type":"object","properties":{"n":{"type":["string","number"]}},"required":["n"],"additionalProperties":false}`, []string{"/properties/n: a type list of several types"}},
		{"other document", `{"type":"object","properties":{"n":{"$ref":"https://example.com/n.json"}},"required":["n"],"additionalProperties":false}`, []string{`/properties/n: $ref "https://example.com/n.json": only refs to the root`}},
		{"ref beside type", `{"type":"object","properties":{"n":{"$ref":"#/$defs/N","type":"string"}},"required":["n"],"additionalProperties":false,"$defs":{"N":{"type":"string"}}}`, []string{"/properties/n: $ref beside type"}},
		{"definitions not an object", `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"required":["n"],"additionalProperties":false,"$defs":[{"type":"string"}]}`,
			[]string{`/properties/n: $ref "#/$defs/N": no such definition`, "/$defs: is not an object"}},
		{"root ref, and definitions of both kinds wrong", `{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"a":{"not":{}}},"required":["a"],"additionalProperties":false}},"definitions":5}`,
			[]string{"the root: is a $ref", "/$defs/A/properties/a: not has no strict form", "/definitions: is not an object"}},
		{"missing definition", `{"type":"object","properties":{"n":{"$ref":"#/$defs/Nope"}},"required":["n"],"additionalProperties":false}`, []string{`/properties/n: $ref "#/$defs/Nope": no such definition`}},
		{"required but not a property", `{"type":"object","properties":{},"required":["ghost"],"additionalProperties":false}`, []string{`the root: required names "ghost"`}},
		{"every problem at once", `{"type":"object","properties":{"a":{"type":"object"},"b":{"not":{"type":"string"}},"c":{"type":["string","null"]}},"required":["a","b"],"additionalProperties":false}`,
			[]string{"/properties/a: an object without properties", "/properties/b: not has no strict form", "/properties/c: is optional and accepts null"}},
		{"5,001 properties", manyProps(5001, 1), []string{"5001 object properties; strict mode allows 5,000"}},
		{"11 levels", nested(11), []string{"objects nest 11 levels deep; strict mode allows 10"}},
		{"1,001 enum values", enumOf(1001, 1), []string{"1001 enum values; strict mode allows 1,000"}},
		{"a long enum of many values", enumOf(251, 60), []string{"an enum of 251 values holds 15060 characters"}},
		{"120,001 characters of names", manyProps(100, 1201), []string{"characters of property names, definition names, enum and const values; strict mode allows 120,000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Strict(json.RawMessage(tc.schema))
			if s.Schema != nil || s.Nulls != nil {
				t.Errorf("got a strict form: %s", s.Schema)
			}
			for _, w := range tc.want {
				if !strings.Contains(s.Reason, w) {
					t.Errorf("reason %q lacks %q", s.Reason, w)
				}
			}
		})
	}
}

// TestStrictLimitsAtTheBound: what sits exactly at strict mode's limits has
// a strict form, and the checker agrees with it.
func TestStrictLimitsAtTheBound(t *testing.T) {
	for name, src := range map[string]string{
		"5,000 properties":              manyProps(5000, 1),
		"10 levels":                     nested(10),
		"1,000 enum values":             enumOf(1000, 1),
		"250 long values":               enumOf(250, 100),
		"251 values, 14,809 characters": enumOf(251, 59),
	} {
		s := Strict(json.RawMessage(src))
		if s.Reason != "" {
			t.Errorf("%s: %s", name, s.Reason)
			continue
		}
		if p := strictcheck.Check(s.Schema); len(p) > 0 {
			t.Errorf("%s: the checker disagrees: %v", name, p)
		}
	}
}

// TestNullsDrop is the round trip: a call a model could send under the
// strict form (nulls for what it leaves out) is valid there, and once Drop
// takes the nulls out it is valid under the original schema, which rejected
// it with them.
func TestNullsDrop(t *testing.T) {
	for _, tc := range []struct {
		name, schema, sent, want string
	}{
		{"top-level optionals", string(createStickyNote.InputSchema),
			`{"text":"hi","x":1.50,"y":2,"color":null,"width":null,"height":300,"parentId":null}`,
			`{"text":"hi","x":1.50,"y":2,"height":300}`},
		{"nested object and array items", strictable["nested optional object, array of objects"],
			`{"title":"t","meta":{"author":"a","year":null},"tags":[{"k":"x","v":null},{"k":"y","v":"z"}]}`,
			`{"title":"t","meta":{"author":"a"},"tags":[{"k":"x"},{"k":"y","v":"z"}]}`},
		{"a whole optional object left out", strictable["nested optional object, array of objects"],
			`{"title":"t","meta":null,"tags":null}`,
			`{"title":"t"}`},
		{"refs, recursion, definitions", strictable["recursion through the root, draft-07 definitions, untyped object"],
			`{"value":"a","children":[{"value":"b","children":[],"extra":{"note":null}}],"extra":null}`,
			`{"value":"a","children":[{"value":"b","children":[],"extra":{}}]}`},
		{"optional refs with descriptions", strictable["refs with descriptions, required and optional"],
			`{"from":{"x":0,"y":0},"to":null}`,
			`{"from":{"x":0,"y":0}}`},
		{"batch: the tool's const picks the branch; args and label", string(strictBatch(t)),
			`{"operations":[` +
				`{"tool":"createFrame","args":{"title":"F","x":0,"y":0,"width":9,"height":9,"color":null},"label":"f"},` +
				`{"tool":"createStickyNote","args":{"text":"n","x":1,"y":1,"color":"red","width":null,"height":null,"parentId":{"$ref":"f.id"}},"label":null}` +
				`],"executionMode":null,"stopOnError":null,"timeout":null,"safetyLimits":{"maxOperations":5,"maxAggregateChars":null,"maxConcurrency":null,"maxResultChars":null}}`,
			`{"operations":[` +
				`{"tool":"createFrame","args":{"title":"F","x":0,"y":0,"width":9,"height":9},"label":"f"},` +
				`{"tool":"createStickyNote","args":{"text":"n","x":1,"y":1,"color":"red","parentId":{"$ref":"f.id"}}}` +
				`],"safetyLimits":{"maxOperations":5}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Strict(json.RawMessage(tc.schema))
			if s.Reason != "" || s.Nulls == nil {
				t.Fatalf("no strict form or no nulls: %q", s.Reason)
			}
			strict, err := schema.Compile(s.Schema)
			if err != nil {
				t.Fatal(err)
			}
			orig, err := schema.Compile(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if vs := violations(t, strict, tc.sent); len(vs) > 0 {
				t.Fatalf("the call is not one a model under the strict form could send: %v", vs)
			}
			if vs := violations(t, orig, tc.sent); len(vs) == 0 {
				t.Errorf("the original schema takes the nulls; the case shows nothing")
			}
			got, changed := s.Nulls.Drop(json.RawMessage(tc.sent))
			if !changed {
				t.Errorf("Drop reports no change")
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Drop (-want +got):\n%s", diff)
			}
			if vs := violations(t, orig, string(got)); len(vs) > 0 {
				t.Errorf("the original schema rejects the call without its nulls: %v", vs)
			}
		})
	}
}

// TestNullsDropKeepsTheRest: nulls the plan does not mark stay (a required
// member's null fails validation as it should), and arguments without a
// null come back as they are, unparsed.
func TestNullsDropKeepsTheRest(t *testing.T) {
	n := Strict(createStickyNote.InputSchema).Nulls
	for _, in := range []string{
		`{"text":null,"x":1,"y":2}`,             // required: not the plan's to drop
		`{"text":"a", "x":1,"y":2 }`,            // no null: untouched, spacing kept
		`{"text":"nullish","x":1,"y":2}`,        // "null" inside a string
		`[null]`,                                // not an object
		`{"text":"a","x":1,"y":2,"other":null}`, // an unknown member: validation's to reject
	} {
		got, changed := n.Drop(json.RawMessage(in))
		if changed || string(got) != in {
			t.Errorf("Drop(%s) = %s, %v; want it unchanged", in, got, changed)
		}
	}
	var none *Nulls
	if got, changed := none.Drop(json.RawMessage(`{"a":null}`)); changed || string(got) != `{"a":null}` {
		t.Errorf("a nil plan changed %s", got)
	}
	if Strict(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)).Nulls != nil {
		t.Error("a schema with nothing optional has a plan")
	}
}
