package tsgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// globals is what every declaration file ends with.
const globals = "declare const input: unknown;\n" +
	"declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void; debug(...args: unknown[]): void };\n"

func tool(name, in, out string) Tool {
	t := Tool{Name: name}
	if in != "" {
		t.InputSchema = json.RawMessage(in)
	}
	if out != "" {
		t.OutputSchema = json.RawMessage(out)
	}
	return t
}

const noArgs = `{"type":"object","properties":{}}`

func TestDeclarations(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
		want  string // without globals
	}{
		{"no tools", nil, "declare const tools: {};\n"},
		{"sorted, nested namespaces", []Tool{
			tool("board.getState", noArgs, ""),
			tool("zoom", noArgs, ""),
			tool("board.clear", noArgs, ""),
			tool("board.layers.list", noArgs, ""),
			tool("add", noArgs, ""),
		}, `declare const tools: {
  add(args?: {}): Promise<unknown>;
  board: {
    clear(args?: {}): Promise<unknown>;
    getState(args?: {}): Promise<unknown>;
    layers: {
      list(args?: {}): Promise<unknown>;
    };
  };
  zoom(args?: {}): Promise<unknown>;
};
`},
		{"tool and namespace of one name", []Tool{
			tool("a.b.c", noArgs, ""),
			tool("a", noArgs, ""),
			tool("a.b", noArgs, ""),
			tool("ab", noArgs, ""),
		}, `declare const tools: {
  a(args?: {}): Promise<unknown>;
  "a.b"(args?: {}): Promise<unknown>;
  "a.b.c"(args?: {}): Promise<unknown>;
  ab(args?: {}): Promise<unknown>;
};
`},
		{"names that are not identifier segments", []Tool{
			tool("", noArgs, ""),
			tool("a-b", noArgs, ""),
			tool("x..y", noArgs, ""),
			tool("1up", noArgs, ""),
			tool("$x", noArgs, ""),
			tool("ns.new", noArgs, ""),
		}, `declare const tools: {
  ""(args?: {}): Promise<unknown>;
  "$x"(args?: {}): Promise<unknown>;
  "1up"(args?: {}): Promise<unknown>;
  "a-b"(args?: {}): Promise<unknown>;
  ns: {
    "new"(args?: {}): Promise<unknown>;
  };
  "x..y"(args?: {}): Promise<unknown>;
};
`},
		{"duplicate names: the first wins", []Tool{
			tool("a", `{"type":"object","properties":{"first":{"type":"string"}}}`, ""),
			tool("a", `{"type":"object","properties":{"second":{"type":"string"}}}`, ""),
		}, `declare const tools: {
  a(args?: { first?: string }): Promise<unknown>;
};
`},
		{"optional and required args", []Tool{
			tool("req", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, ""),
			tool("opt", `{"type":"object","properties":{"a":{"type":"string"}}}`, ""),
			tool("str", `{"type":"string"}`, ""),
			tool("any", `{}`, ""),
			tool("invalid", `{"type":`, ""),
			tool("missing", ``, ""),
			tool("never", `false`, ""),
		}, `declare const tools: {
  any(args?: unknown): Promise<unknown>;
  invalid(args?: unknown): Promise<unknown>;
  missing(args?: unknown): Promise<unknown>;
  never(args: never): Promise<unknown>;
  opt(args?: { a?: string }): Promise<unknown>;
  req(args: { a: string }): Promise<unknown>;
  str(args: string): Promise<unknown>;
};
`},
		{"results", []Tool{
			tool("obj", noArgs, `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			tool("num", noArgs, `{"type":"number"}`),
			tool("bad", noArgs, `nope`),
		}, `declare const tools: {
  bad(args?: {}): Promise<unknown>;
  num(args?: {}): Promise<number>;
  obj(args?: {}): Promise<{ id: string }>;
};
`},
		{"descriptions", []Tool{
			{Name: "a", Description: "  Does a. Not */ b.  ", InputSchema: json.RawMessage(noArgs)},
			{Name: "b", Description: "Line one.\n\nLine two.", InputSchema: json.RawMessage(noArgs)},
		}, `declare const tools: {
  /** Does a. Not *\/ b. */
  a(args?: {}): Promise<unknown>;
  /**
   * Line one.
   *
   * Line two.
   */
  b(args?: {}): Promise<unknown>;
};
`},
		{"defs become aliases named by tool", []Tool{
			tool("createShape", `{"type":"object","$defs":{
				"Point":{"type":"object","description":"A point.","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]},
				"Unused":{"type":"string"}},
				"properties":{"points":{"type":"array","items":{"$ref":"#/$defs/Point"}},"at":{"$ref":"#/$defs/Point"}}}`, ""),
			tool("board.getState", `{"type":"object","definitions":{"Obj":{"type":"object","properties":{"id":{"type":"string"}}}},
				"properties":{"only":{"$ref":"#/definitions/Obj"}}}`, ""),
		}, `type BoardGetState_Obj = { id?: string };

/** A point. */
type CreateShape_Point = { x: number; y: number };

declare const tools: {
  board: {
    getState(args?: { only?: BoardGetState_Obj }): Promise<unknown>;
  };
  createShape(args?: { points?: CreateShape_Point[]; at?: CreateShape_Point }): Promise<unknown>;
};
`},
		{"recursive defs", []Tool{
			tool("tree", `{"type":"object","$defs":{
				"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"]},
				"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},
				"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}},
				"properties":{"root":{"$ref":"#/$defs/Node"},"a":{"$ref":"#/$defs/A"}}}`, ""),
		}, `type Tree_Node = { name: string; children?: Tree_Node[] };

type Tree_B = { a?: Tree_A };

type Tree_A = { b?: Tree_B };

declare const tools: {
  tree(args?: { root?: Tree_Node; a?: Tree_A }): Promise<unknown>;
};
`},
		{"root references", []Tool{
			tool("nest", `{"type":"object","properties":{"inner":{"$ref":"#"}}}`, `{"type":"object","properties":{"next":{"$ref":"#"}}}`),
		}, `type Nest_Args = { inner?: Nest_Args };

type Nest_Result = { next?: Nest_Result };

declare const tools: {
  nest(args?: { inner?: Nest_Args }): Promise<{ next?: Nest_Result }>;
};
`},
		{"pointer escapes and deep pointers", []Tool{
			tool("p", `{"type":"object","$defs":{"a/b":{"type":"string"},"c~d":{"type":"number"},"e f":{"type":"boolean"}},
				"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"},"z":{"$ref":"#/$defs/e%20f"},
				"w":{"$ref":"#/properties/x"},"v":{"$ref":"#/$defs/a~1b/nope"}}}`, ""),
		}, `type P_a_b = string;

type P_c_d = number;

type P_e_f = boolean;

type P_x = P_a_b;

declare const tools: {
  p(args?: { x?: P_a_b; y?: P_c_d; z?: P_e_f; w?: P_x; v?: unknown }): Promise<unknown>;
};
`},
		{"input and output share equal defs", []Tool{
			tool("move", `{"type":"object","$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}}}},"properties":{"to":{"$ref":"#/$defs/Point"}}}`,
				`{"$defs":{"Point":{"properties":{"x":{"type":"number"}},"type":"object"}},"type":"object","properties":{"at":{"$ref":"#/$defs/Point"}}}`),
		}, `type Move_Point = { x?: number };

declare const tools: {
  move(args?: { to?: Move_Point }): Promise<{ at?: Move_Point }>;
};
`},
		{"input and output differ in a def", []Tool{
			tool("move", `{"type":"object","$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}}}},"properties":{"to":{"$ref":"#/$defs/Point"}}}`,
				`{"$defs":{"Point":{"type":"object","properties":{"x":{"type":"string"}}},"Only":{"type":"null"}},"type":"object","properties":{"at":{"$ref":"#/$defs/Point"},"o":{"$ref":"#/$defs/Only"}}}`),
		}, `type Move_Point = { x?: number };

type Move_Out_Point = { x?: string };

type Move_Only = null;

declare const tools: {
  move(args?: { to?: Move_Point }): Promise<{ at?: Move_Out_Point; o?: Move_Only }>;
};
`},
		{"equal defs that reach different defs are not shared", []Tool{
			tool("m", `{"$defs":{"P":{"$ref":"#/$defs/Q"},"Q":{"type":"number"}},"type":"object","properties":{"p":{"$ref":"#/$defs/P"}}}`,
				`{"$defs":{"P":{"$ref":"#/$defs/Q"},"Q":{"type":"string"}},"$ref":"#/$defs/P"}`),
		}, `type M_Q = number;

type M_P = M_Q;

type M_Out_Q = string;

type M_Out_P = M_Out_Q;

declare const tools: {
  m(args?: { p?: M_P }): Promise<M_Out_P>;
};
`},
		{"alias names stay unique", []Tool{
			tool("a_b", `{"type":"object","$defs":{"c":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/c"}}}`, ""),
			tool("A", `{"type":"object","$defs":{"b_c":{"type":"number"}},"properties":{"x":{"$ref":"#/$defs/b_c"}}}`, ""),
		}, `type A_b_c = number;

type A_b_c_2 = string;

declare const tools: {
  A(args?: { x?: A_b_c }): Promise<unknown>;
  a_b(args?: { x?: A_b_c_2 }): Promise<unknown>;
};
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Declarations(tt.tools)
			checkTS(t, got)
			if diff := cmp.Diff(tt.want+globals, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestDeclarationsDeterministic(t *testing.T) {
	tools := loadTools(t, "testdata/whiteboard.json")
	want := Declarations(tools)
	for i := 0; i < 5; i++ {
		rev := make([]Tool, len(tools))
		for j, tl := range tools {
			rev[len(tools)-1-j] = tl
		}
		tools = rev
		if got := Declarations(tools); got != want {
			t.Fatalf("output changed with input order:\n%s", cmp.Diff(want, got))
		}
	}
}

// TestCheckTS makes sure the esbuild check used everywhere can fail.
func TestCheckTS(t *testing.T) {
	for _, bad := range []string{"type X = { a: };", "declare const x: (;", "type X = string[;"} {
		r := api.Transform(bad, api.TransformOptions{Loader: api.LoaderTS})
		if len(r.Errors) == 0 {
			t.Errorf("esbuild accepted %q", bad)
		}
	}
}

func loadTools(t testing.TB, path string) []Tool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tools []Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tools
}

// TestGolden compares the declarations of each testdata/*.json tool list
// with testdata/*.golden; go test -update rewrites them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := Declarations(loadTools(t, f))
			checkTS(t, got)
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", golden, diff)
			}
		})
	}
}

func FuzzDeclarations(f *testing.F) {
	// Seeds are kept small: the fuzzer minimizes every input that finds new
	// coverage, and a big one takes most of a short -fuzztime.
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		for _, tl := range loadTools(f, file) {
			for _, s := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
				var b bytes.Buffer
				if json.Compact(&b, s) == nil && b.Len() > 0 && b.Len() < 600 {
					f.Add(tl.Name, "", b.Bytes())
				}
			}
		}
	}
	f.Add("t", "", []byte(`{"type":"object","properties":{"a":{"type":["string","null"],"default":1}},"additionalProperties":{"type":"number"}}`))
	f.Add("t", "", []byte(`{"$defs":{"N":{"properties":{"c":{"items":{"$ref":"#/$defs/N"}}}}},"$ref":"#/$defs/N"}`))
	f.Add("t", "", []byte(`{"allOf":[{"anyOf":[{"const":{"a":[1]}},{"type":"array","prefixItems":[{}],"items":false}]}]}`))
	f.Add("a.b", "*/ /*", []byte(`{"$ref":"#","enum":[-1,{"a":[]}],"prefixItems":[false]}`))
	f.Add("new", "", []byte(`{"type":["array","object"],"items":{"$ref":"#/$defs/x"},"$defs":{"x":{"anyOf":[{"$ref":"#"}]}}}`))
	f.Fuzz(func(t *testing.T, name, desc string, schema []byte) {
		tools := []Tool{
			{Name: name, Description: desc, InputSchema: schema, OutputSchema: schema},
			{Name: "a", InputSchema: schema},
			{Name: "a." + name, Description: desc, InputSchema: schema},
		}
		got := Declarations(tools)
		checkTS(t, got)
		if again := Declarations(tools); again != got {
			t.Fatalf("not deterministic:\n%s", cmp.Diff(got, again))
		}
	})
}

// TestDeclaration: one tool's declaration is what Declarations writes for it
// alone, less the input and console globals.
func TestDeclaration(t *testing.T) {
	tool := Tool{Name: "github.create_issue", Description: "Open an issue.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)}
	got := Declaration(tool)
	want := "declare const tools: {\n  github: {\n    /** Open an issue. */\n    create_issue(args: { title: string }): Promise<unknown>;\n  };\n};\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if all := Declarations([]Tool{tool}); !strings.HasPrefix(all, got) || !strings.Contains(all[len(got):], "declare const console") {
		t.Errorf("Declarations = %q, want the declaration then the globals", all)
	}
}
