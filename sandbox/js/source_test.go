package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

func TestCompileTransformsOnlyWhatNeedsIt(t *testing.T) {
	tests := []struct {
		name, code string
		ts         bool
		want       string // the run's value
	}{
		{"plain", "return 1 + 2", false, "3"},
		{"empty", "", false, "null"},
		{"modern JS", "const o = {a: {b: 2}}; class C { #x = 1; get x() { return this.#x } }\n" +
			"const [p, ...rest] = [1, 2, 3]; return [o?.a?.b ?? 0, new C().x, `${p}`, rest]", false, `[2,1,"1",[2,3]]`},
		{"top-level await", "const r = await tools.echo({k: 1}); return r.k", false, "1"},
		{"type annotation", "const n: number = 2; return n * 2", true, "4"},
		{"interface", "interface P { x: number }\nconst p: P = {x: 5};\nreturn p.x", true, "5"},
		{"enum", "enum E { A, B }\nreturn E.B", true, "1"},
		{"generic and as", "function id<T>(v: T): T { return v }\nreturn id<string>('s' as string)", true, `"s"`},
		{"TS with await", "const r: {k: number} = await tools.echo({k: 7});\nreturn r.k", true, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.code, 0)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if s.TypeScript != tt.ts {
				t.Errorf("TypeScript = %v, want %v", s.TypeScript, tt.ts)
			}
			res := runScript(t, s, Options{})
			if res.Err != nil {
				t.Fatalf("run: %v", res.Err)
			}
			if got := string(res.Value); got != tt.want {
				t.Errorf("value = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCompileSyntaxErrorPosition(t *testing.T) {
	tests := []struct {
		name, code string
		line, col  int // in the code as sent, 1-based, in characters
	}{
		// Line 1 shares its line with the wrapper's prefix: columns must not
		// include it.
		{"JS line 1", "return 1 +;", 1, 11},
		{"JS line 1 after non-ASCII", "let é = 'ü'; return é +;", 1, 24},
		{"JS line 2", "let x = 1;\n  x = = 2;", 2, 7},
		{"JS unterminated template", "return `", 1, 9},
		// The parser only notices at the wrapper's suffix: the position is
		// clamped to the end of the code.
		{"JS unclosed paren", "return (1 + 2", 1, 14},
		{"JS unclosed paren line 2", "let x = 1;\nreturn (x +", 2, 12},
		{"TS line 1", "let x: number = 1 +;", 1, 20},
		{"TS line 1 after non-ASCII", "let s = 'ü'; let x: number = 1 +;", 1, 33},
		{"TS after multi-line interface", "interface A {\n  a: number;\n  b: string;\n}\nconst v: A = {a: 1, b: 'x'};\nreturn v.a +;", 6, 13},
		{"TS unclosed paren", "let x: number = (1 + 2", 1, 23},
		// The parsers end a line at \r and U+2028 too; a position says
		// lines as the code's \n end them, the \r or U+2028 one character.
		{"JS after a lone CR", "let x = 1;\rx = = 2;", 1, 16},
		{"JS after U+2028", "let x = 1;\u2028x = = 2;", 1, 16},
		{"JS after CR LF", "let x = 1;\r\n  x = = 2;", 2, 7},
		{"JS after a lone CR, on line 2", "let x = 1;\nlet y = 2;\rx = = 2;", 2, 16},
		{"JS number then a letter after a CR", "\r0A\n", 1, 3},
		{"TS after a lone CR", "let x: number = 1;\rx = = 2;", 1, 24},
		{"JS BigInt after a lone CR", "let x = 1;\rreturn 1n", 1, 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.code, 0)
			if err == nil {
				t.Fatalf("Compile succeeded (TypeScript=%v), want a syntax error", s.TypeScript)
			}
			if err.Code != CodeSyntaxError {
				t.Errorf("code = %s, want %s (%v)", err.Code, CodeSyntaxError, err)
			}
			if err.Message == "" {
				t.Error("empty message")
			}
			if err.Line != tt.line || err.Column != tt.col {
				t.Errorf("position = %d:%d, want %d:%d (%s)", err.Line, err.Column, tt.line, tt.col, err.Message)
			}
		})
	}
}

func TestCompileCodeSize(t *testing.T) {
	code := "return 1;" + strings.Repeat(" ", 91) // 100 bytes
	if _, err := Compile(code, 100); err != nil {
		t.Errorf("100 bytes with a limit of 100: %v", err)
	}
	_, err := Compile(code+" ", 100)
	if err == nil || err.Code != CodeLimitExceeded {
		t.Errorf("101 bytes with a limit of 100: err = %v, want %s", err, CodeLimitExceeded)
	}
	if err != nil && !strings.Contains(err.Message, "101") {
		t.Errorf("message %q does not give the size", err.Message)
	}

	// maxBytes 0 is the default.
	big := "return 1;" + strings.Repeat(" ", DefaultMaxCodeBytes-9)
	if _, err := Compile(big, 0); err != nil {
		t.Errorf("DefaultMaxCodeBytes bytes: %v", err)
	}
	if _, err := Compile(big+" ", 0); err == nil || err.Code != CodeLimitExceeded {
		t.Errorf("DefaultMaxCodeBytes+1 bytes: err = %v, want %s", err, CodeLimitExceeded)
	}
}

func TestCompileInvalidUTF8(t *testing.T) {
	for _, code := range []string{"return '\xff'", "// \xc3\n return 1", "let x: number = 1; // \xe2\x82"} {
		_, err := Compile(code, 0)
		if err == nil || err.Code != CodeSyntaxError {
			t.Errorf("Compile(%q): err = %v, want %s", code, err, CodeSyntaxError)
		}
	}
}

// A source-map comment must not make Compile read the file it names.
func TestCompileIgnoresSourceMappingURL(t *testing.T) {
	for _, code := range []string{
		"return 1\n//# sourceMappingURL=/etc/passwd",
		"return 1\n//# sourceMappingURL=../../../../../../../etc/passwd\n",
		"const x: number = 1;\nreturn x\n//# sourceMappingURL=/etc/passwd",
	} {
		s, err := Compile(code, 0)
		if err != nil {
			t.Errorf("Compile(%q): %v", code, err)
			continue
		}
		if res := runScript(t, s, Options{}); res.Err != nil || string(res.Value) != "1" {
			t.Errorf("run %q: value %s, err %v; want 1", code, res.Value, res.Err)
		}
	}
}

// compileJS is where the sandbox's parser meets code: it must not follow a
// source-map comment on the last line, which goja's parser would otherwise
// load from disk (a path relative to the working directory, for a source
// named script.js).
func TestCompileJSDoesNotLoadSourceMaps(t *testing.T) {
	// A real source map, which places the error in "elsewhere.js".
	out := api.Transform("\n\nthrow new Error('boom')\n", api.TransformOptions{
		Loader: api.LoaderJS, Sourcemap: api.SourceMapExternal, Sourcefile: "elsewhere.js",
	})
	if len(out.Errors) > 0 {
		t.Fatal(out.Errors[0].Text)
	}
	mapFile := filepath.Join(t.TempDir(), "script.js.map")
	if err := os.WriteFile(mapFile, out.Map, 0o600); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, mapFile)
	if err != nil {
		t.Fatal(err)
	}
	src := string(out.Code) + "//# sourceMappingURL=" + filepath.ToSlash(rel)

	stackOf := func(prg *goja.Program) string {
		_, err := goja.New().RunProgram(prg)
		ex, ok := err.(*goja.Exception)
		if !ok {
			t.Fatalf("run: %v, want an exception", err)
		}
		return ex.String()
	}

	// Control: goja's parser with its defaults does load the map, so the
	// test would notice if compileJS did.
	ast, err := parser.ParseFile(nil, scriptName, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prg, err := goja.CompileAST(ast, true)
	if err != nil {
		t.Fatal(err)
	}
	if st := stackOf(prg); !strings.Contains(st, "elsewhere.js") {
		t.Fatalf("control: the default parser did not use the source map: %s", st)
	}

	prg, jsErr, _ := compileJS(src)
	if jsErr != nil {
		t.Fatal(jsErr)
	}
	if st := stackOf(prg); strings.Contains(st, "elsewhere.js") || !strings.Contains(st, scriptName+":") {
		t.Errorf("compileJS used the source map: %s", st)
	}
}

// Runtime errors in TypeScript are located in the code as sent, not in
// esbuild's output.
func TestTypeScriptRuntimeErrorPosition(t *testing.T) {
	tests := []struct {
		name, code string
		wantCode   Code
		line, col  int
	}{
		{"after an interface", "interface A {\n  a: number;\n}\nconst v: A = {a: 1};\n  null.x;", CodeRuntimeError, 5, 8},
		{"inside a function", "type T = {a: number}\n\n\nfunction f(x: T): number {\n  return x.a.b.c;\n}\nreturn f({a: 1});", CodeRuntimeError, 5, 16},
		{"after an enum", "enum E { A, B }\nconst e: E = E.B;\nthrow new Error('boom ' + e);", CodeRuntimeError, 3, 7},
		{"after an await", "const n: number = 1;\nawait tools.echo({});\n\nconst o: any = null; o.field;", CodeRuntimeError, 4, 24},
		// The same errors in plain JavaScript, for comparison.
		{"JS", "let y = 2;\n  null.x", CodeRuntimeError, 2, 8},
		{"JS inside a function", "function f(x) {\n  return x.a.b.c;\n}\nreturn f({a: 1});", CodeRuntimeError, 2, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := runCode(t, tt.code, Options{})
			if res.Err == nil {
				t.Fatalf("no error; value %s", res.Value)
			}
			if res.Err.Code != tt.wantCode {
				t.Errorf("code = %s, want %s (%v)", res.Err.Code, tt.wantCode, res.Err)
			}
			if res.Err.Line != tt.line || res.Err.Column != tt.col {
				t.Errorf("position = %d:%d, want %d:%d", res.Err.Line, res.Err.Column, tt.line, tt.col)
			}
		})
	}
}

// A tool call's position (given to the host, and kept by its error) is in
// the TypeScript as sent.
func TestTypeScriptCallPosition(t *testing.T) {
	code := "interface A {\n  a: number;\n}\nconst v: A = {a: 1};\n  await tools.fail(v);"
	res, h := runCode(t, code, Options{})
	if res.Err == nil || res.Err.Code != "tool_error" {
		t.Fatalf("err = %v, want the tool's error", res.Err)
	}
	if len(h.calls) != 1 {
		t.Fatalf("host saw %d calls, want 1", len(h.calls))
	}
	c := h.calls[0]
	// "  await tools.fail(v);": the call expression spans columns 9 ("tools")
	// to 19 ("(").
	if c.Line != 5 || c.Column < 9 || c.Column > 19 {
		t.Errorf("call position = %d:%d, want line 5, columns 9-19", c.Line, c.Column)
	}
	if res.Err.Line != c.Line || res.Err.Column != c.Column {
		t.Errorf("error position = %d:%d, want the call's %d:%d", res.Err.Line, res.Err.Column, c.Line, c.Column)
	}
	if got := string(c.Args); got != `{"a":1}` {
		t.Errorf("args = %s", got)
	}
}

// runScript runs a compiled script with a test host.
func runScript(t *testing.T, s *Script, opt Options) *Result {
	t.Helper()
	h := newTestHost()
	opt.Host, opt.Tools = h, h.names()
	res := Run(context.Background(), s, opt)
	h.wg.Wait()
	return res
}

// runCode compiles and runs code with a test host (a new one unless
// opt.Host is one; opt.Tools are its tools unless set), waits for the host's
// goroutines, and returns the host to inspect its calls.
func runCode(t *testing.T, code string, opt Options) (*Result, *testHost) {
	t.Helper()
	var h *testHost
	switch host := opt.Host.(type) {
	case nil:
		h = newTestHost()
		opt.Host = h
	case *testHost:
		h = host
	case *batchHost:
		h = host.testHost
	default:
		t.Fatalf("runCode cannot wait for a %T", host)
	}
	if opt.Tools == nil {
		opt.Tools = h.names()
	}
	s, err := Compile(code, 0)
	if err != nil {
		t.Fatalf("Compile(%q): %v", code, err)
	}
	res := Run(context.Background(), s, opt)
	h.wg.Wait()
	return res, h
}

func mustJSON(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("value %q is not JSON: %v", raw, err)
	}
	return v
}
