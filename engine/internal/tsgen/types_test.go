package tsgen

import (
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/go-cmp/cmp"
)

// checkTS fails t unless esbuild parses src as TypeScript.
func checkTS(t testing.TB, src string) {
	t.Helper()
	r := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS})
	for _, m := range r.Errors {
		t.Errorf("esbuild: %s (line %d)", m.Text, lineOf(m))
	}
	if len(r.Errors) > 0 {
		t.Fatalf("invalid TypeScript:\n%s", src)
	}
}

func lineOf(m api.Message) int {
	if m.Location == nil {
		return 0
	}
	return m.Location.Line
}

// typeOfSchema renders one schema as the type expression of a tool "t", and
// the aliases it needed.
func typeOfSchema(t *testing.T, schema string) (expr, aliases string) {
	t.Helper()
	v, err := parse([]byte(schema))
	if err != nil {
		t.Fatalf("parse %s: %v", schema, err)
	}
	g := newGen()
	ty := newScope(g, v, "T", "Args").typeOf(v, 0, "")
	aliases = strings.Join(g.aliases, "")
	checkTS(t, aliases+"type X = "+ty.s+";\n")
	return ty.s, aliases
}

func TestTypeOf(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		// Scalars.
		{"string", `{"type":"string"}`, "string"},
		{"number", `{"type":"number"}`, "number"},
		{"integer", `{"type":"integer"}`, "number"},
		{"boolean", `{"type":"boolean"}`, "boolean"},
		{"null", `{"type":"null"}`, "null"},
		{"empty schema", `{}`, "unknown"},
		{"true", `true`, "unknown"},
		{"false", `false`, "never"},
		{"not a schema", `42`, "unknown"},
		{"no type", `{"description":"anything"}`, "unknown"},
		{"unknown type", `{"type":"decimal"}`, "unknown"},
		{"type not a string", `{"type":7}`, "unknown"},
		{"nullable ignored", `{"type":"string","nullable":true}`, "string"},

		// Type lists.
		{"string or null", `{"type":["string","null"]}`, "string | null"},
		{"integer or number", `{"type":["integer","number"]}`, "number"},
		{"empty type list", `{"type":[]}`, "unknown"},
		{"object or null", `{"type":["object","null"],"properties":{"a":{"type":"string"}},"required":["a"]}`,
			"{ a: string } | null"},

		// Arrays.
		{"array", `{"type":"array","items":{"type":"string"}}`, "string[]"},
		{"array of arrays", `{"type":"array","items":{"type":"array","items":{"type":"number"}}}`, "number[][]"},
		{"array of union", `{"type":"array","items":{"type":["string","number"]}}`, "(string | number)[]"},
		{"array of intersection", `{"type":"array","items":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]}}`,
			"({ a: string } & { b: string })[]"},
		{"array of negative literal", `{"type":"array","items":{"const":-1}}`, "(-1)[]"},
		{"array without items", `{"type":"array"}`, "unknown[]"},
		{"array items false", `{"type":"array","items":false}`, "[]"},
		{"array inferred", `{"items":{"type":"boolean"}}`, "boolean[]"},
		{"tuple", `{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}]}`, "[number, string]"},
		{"closed tuple", `{"type":"array","prefixItems":[{"type":"number"}],"items":false}`, "[number]"},
		{"tuple with rest", `{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":["string","null"]}}`,
			"[number, ...(string | null)[]]"},
		{"draft-07 tuple", `{"type":"array","items":[{"type":"number"},{"type":"number"}],"additionalItems":false}`,
			"[number, number]"},
		{"draft-07 tuple with rest", `{"type":"array","items":[{"type":"number"}],"additionalItems":{"type":"string"}}`,
			"[number, ...string[]]"},

		// Objects.
		{"object", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}`,
			"{ a: string; b?: number }"},
		{"property order kept", `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}}}`,
			"{ z?: string; a?: string; m?: string }"},
		{"object inferred", `{"properties":{"a":{"type":"string"}}}`, "{ a?: string }"},
		{"bare object", `{"type":"object"}`, "{ [key: string]: unknown }"},
		{"no properties closed", `{"type":"object","additionalProperties":false}`, "{}"},
		{"empty properties", `{"type":"object","properties":{}}`, "{}"},
		{"map", `{"type":"object","additionalProperties":{"type":"number"}}`, "{ [key: string]: number }"},
		{"map inferred", `{"additionalProperties":{"type":"string"}}`, "{ [key: string]: string }"},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`,
			"{ a?: string; [key: string]: unknown }"},
		{"properties and map", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"number"}}`,
			"{ a?: string } & { [key: string]: number }"},
		{"pattern properties", `{"type":"object","patternProperties":{"^x":{"type":"string"},"^n":{"type":"number"}},"additionalProperties":false}`,
			"{ [key: string]: string | number }"},
		{"quoted keys", `{"type":"object","properties":{"x-y":{"type":"number"},"1a":{},"":{}},"required":["x-y"]}`,
			`{ "x-y": number; "1a"?: unknown; ""?: unknown }`},
		{"more quoted keys", `{"type":"object","properties":{"new":{},"$ok":{},"a\"b":{},"ü":{}}}`,
			`{ "new"?: unknown; $ok?: unknown; "a\"b"?: unknown; "ü"?: unknown }`},
		{"keyword keys", `{"type":"object","properties":{"delete":{},"readonly":{},"get":{},"constructor":{}}}`,
			"{ delete?: unknown; readonly?: unknown; get?: unknown; constructor?: unknown }"},
		{"duplicate key, last wins", `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`,
			"{ a?: number }"},

		// Literals.
		{"enum", `{"type":"string","enum":["box","circle"]}`, `"box" | "circle"`},
		{"enum mixed", `{"enum":[1,-2.5,"a",null,true,1e3]}`, `1 | -2.5 | "a" | null | true | 1e3`},
		{"enum escapes", `{"enum":["say \"hi\"","a\nb","\u2028"]}`, `"say \"hi\"" | "a\nb" | "\u2028"`},
		{"enum empty", `{"enum":[]}`, "never"},
		{"enum duplicates", `{"enum":["a","a"]}`, `"a"`},
		{"const", `{"const":"fixed"}`, `"fixed"`},
		{"const beats type", `{"type":"string","const":"x"}`, `"x"`},
		{"const null", `{"const":null}`, "null"},
		{"const object", `{"const":{"a":1,"b-c":[true,"x"],"d":{}}}`, `{ a: 1; "b-c": [true, "x"]; d: {} }`},

		// Combinators.
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, "string | number"},
		{"oneOf", `{"oneOf":[{"const":"a"},{"const":"b"}]}`, `"a" | "b"`},
		{"anyOf with anything", `{"anyOf":[{"type":"string"},{}]}`, "unknown"},
		{"anyOf with never", `{"anyOf":[{"type":"string"},false]}`, "string"},
		{"allOf", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"number"}},"required":["b"]}]}`,
			"{ a: string } & { b: number }"},
		{"allOf of one", `{"allOf":[{"type":"string"}]}`, "string"},
		{"type and anyOf", `{"type":"object","properties":{"kind":{"type":"string"}},"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}]}`,
			"{ kind?: string } & ({ a?: string } | { b?: string })"},
		{"constraint-only anyOf", `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			"{ a?: string }"},

		// References that cannot be followed.
		{"remote ref", `{"$ref":"other.json#/$defs/X"}`, "unknown"},
		{"missing def", `{"$ref":"#/$defs/Nope"}`, "unknown"},
		{"anchor ref", `{"$ref":"#node"}`, "unknown"},
		{"ref to true", `{"$defs":{"Any":true},"$ref":"#/$defs/Any"}`, "unknown"},
		{"ref to false", `{"$defs":{"None":false},"type":"array","items":{"$ref":"#/$defs/None"}}`, "never[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := typeOfSchema(t, tt.schema)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tt.schema, diff)
			}
		})
	}
}

func TestTypeOfLayout(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"docs put members on lines", `{"type":"object","properties":{
			"a":{"type":"string","description":"The a."},
			"b":{"type":"object","properties":{"c":{"type":"number","description":"The c."}}}}}`,
			`{
  /** The a. */
  a?: string;
  b?: {
    /** The c. */
    c?: number;
  };
}`},
		{"long objects break", `{"type":"object","properties":{
			"aaaaaaaaaaaaaaaa":{"type":"string"},"bbbbbbbbbbbbbbbb":{"type":"string"},
			"cccccccccccccccc":{"type":"string"},"dddddddddddddddd":{"type":"string"}}}`,
			`{
  aaaaaaaaaaaaaaaa?: string;
  bbbbbbbbbbbbbbbb?: string;
  cccccccccccccccc?: string;
  dddddddddddddddd?: string;
}`},
		{"constraint notes", `{"type":"object","properties":{
			"n":{"type":"integer","minimum":1,"maximum":10,"default":3,"description":"How many."},
			"s":{"type":"string","minLength":1,"maxLength":5,"format":"email","pattern":"^a+$"},
			"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"deprecated":true},
			"e":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
			"d":{"type":"object","default":{"b":1,"a":[true]}}}}`,
			`{
  /** How many. @minimum 1 @maximum 10 @default 3 */
  n?: number;
  /** @minLength 1 @maxLength 5 @format email @pattern ^a+$ */
  s?: string;
  /** @minItems 1 @maxItems 2 @deprecated */
  l?: string[];
  /** @exclusiveMinimum 0 @exclusiveMaximum 1 */
  e?: number;
  /** @default {"a":[true],"b":1} */
  d?: { [key: string]: unknown };
}`},
		{"comment end escaped", `{"type":"object","properties":{"a":{"type":"string","description":"ends */ here","pattern":"a*/"}}}`,
			`{
  /** ends *\/ here @pattern a*\/ */
  a?: string;
}`},
		{"multi-line description", `{"type":"object","properties":{"a":{"type":"string","description":"First line.\r\n\nThird line.  \n","default":"x"}}}`,
			`{
  /**
   * First line.
   *
   * Third line.
   * @default "x"
   */
  a?: string;
}`},
		{"long notes cut", `{"type":"object","properties":{"a":{"type":"string","pattern":"` + strings.Repeat("x", 100) + `"}}}`,
			`{
  /** @pattern ` + strings.Repeat("x", 79) + `… */
  a?: string;
}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := typeOfSchema(t, tt.schema)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	schema := strings.Repeat(`{"type":"array","items":`, 40) + `{"type":"string"}` + strings.Repeat(`}`, 40)
	got, _ := typeOfSchema(t, schema)
	want := "unknown" + strings.Repeat("[]", maxDepth+1)
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Literals are cut too.
	got, _ = typeOfSchema(t, `{"const":`+strings.Repeat("[", 40)+strings.Repeat("]", 40)+`}`)
	if !strings.Contains(got, "unknown") {
		t.Errorf("deep const not cut: %s", got)
	}
}

func TestParse(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"a":}`, `{} {}`, `{}x`, `[1,]`, strings.Repeat("[", maxParseDepth+2) + strings.Repeat("]", maxParseDepth+2)} {
		if _, err := parse([]byte(bad)); err == nil {
			t.Errorf("parse(%.20q) succeeded", bad)
		}
	}
	v, err := parse([]byte(` {"b":1,"a":[null,"x",true],"b":2} `))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	canon(&b, v)
	if got, want := b.String(), `{"a":[null,"x",true],"b":2}`; got != want {
		t.Errorf("canon = %s, want %s", got, want)
	}
	if got := v.(*object).keys; !cmp.Equal(got, []string{"b", "a"}) {
		t.Errorf("keys = %q, want [b a]", got)
	}
}
