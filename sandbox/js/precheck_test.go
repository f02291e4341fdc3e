package js

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPrecheckCountsNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "x" + strings.Repeat(close, n)
	}
	tests := []struct {
		name string
		code string
		ok   bool
	}{
		{"parens at the limit", "return " + deep("(", ")", MaxNesting), true},
		{"parens past it", "return " + deep("(", ")", MaxNesting+1), false},
		{"brackets", "return " + deep("[", "]", MaxNesting+1), false},
		{"braces", deep("{", "}", MaxNesting+1), false},
		{"template substitutions", "return " + deep("`${", "}`", MaxNesting+1), false},
		{"arrows", "return " + strings.Repeat("x=>", MaxNesting+1) + "x", false},
		{"ternaries", "return " + strings.Repeat("a?b:", MaxNesting+1) + "c", false},
		{"not", "return " + strings.Repeat("!", MaxNesting+1) + "x", false},
		{"minus", "return " + strings.Repeat("- ", MaxNesting+1) + "x", false},
		{"typeof", "return " + strings.Repeat("typeof ", MaxNesting+1) + "x", false},
		{"await", "return " + strings.Repeat("await ", MaxNesting+1) + "x", false},
		{"new", "return " + strings.Repeat("new ", MaxNesting+1) + "x", false},
		{"prefix increments", "return " + strings.Repeat("++", MaxNesting+1) + "x", false},
		{"labels", strings.Repeat("a:", MaxNesting+1) + ";", false},
		{"labels across lines", strings.Repeat("a:\n", MaxNesting+1) + ";", false},
		{"object properties", "return {" + strings.Repeat("a: 1, ", 1000) + "}", true},
		{"interface members", "interface A {\n" + strings.Repeat("  a: string\n", 1000) + "}", true},
		{"switch cases", "switch (x) {" + strings.Repeat("case 1: ", 1000) + "}", true},
		{"ternaries with colons", strings.Repeat("v = a ? b : c;\n", 1000), true},
		{"mixed", "return " + strings.Repeat("(x=>!a?", MaxNesting/3+1) + "1" + strings.Repeat(":2)", MaxNesting/3+1), false},
		// The same constructs side by side do not add up.
		{"sequential brackets", strings.Repeat("f((((1))));\n", 1000), true},
		{"arrows in arguments", strings.Repeat("a.map(x => x + 1)\n", 1000), true},
		{"arrows after commas", "f(" + strings.Repeat("x => 1, ", 1000) + "0)", true},
		{"ternaries in statements", strings.Repeat("const v = a ? b : c\n", 1000), true},
		{"awaits without semicolons", strings.Repeat("await tools.add({a: 1, b: 2})\n", 1000), true},
		{"prefix operators on operands", "return " + strings.Repeat("!a && -b && typeof c && ", 1000) + "1", true},
		{"postfix increments", strings.Repeat("i++\n", 1000), true},
		{"optional chaining", "return a" + strings.Repeat("?.b", 1000), true},
		{"coalescing", "return a" + strings.Repeat(" ?? b", 1000), true},
		// Brackets that are text do not count.
		{"in double quotes", `return "` + strings.Repeat("(", 1000) + `"`, true},
		{"in single quotes", `return '` + strings.Repeat("{", 1000) + `'`, true},
		{"escaped quote", `return "\"` + strings.Repeat("[", 1000) + `"`, true},
		{"in a template", "return `" + strings.Repeat("{(", 1000) + "`", true},
		{"dollar without brace", "return `$" + strings.Repeat("(", 1000) + "`", true},
		{"in a line comment", "// " + strings.Repeat("(", 1000) + "\nreturn 1", true},
		{"in a block comment", "/* " + strings.Repeat("(\n", 1000) + " */ return 1", true},
		{"in a regexp", "return /" + strings.Repeat("[(]", 1000) + "/g.test(s)", true},
		{"slash in a class", "return /[/(]" + strings.Repeat("\\(", 1000) + "/", true},
		{"division is not a regexp", "return a / " + deep("(", ")", MaxNesting+1) + " / b", false},
		{"keyword property before division", "return x.return / " + deep("(", ")", MaxNesting+1), false},
		{"closer in a string inside a substitution", "return `${'}'" + strings.Repeat("(", MaxNesting+1) + "}`", false},
		{"string closers do not close", "return " + strings.Repeat("('))'+", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := precheck(tt.code)
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && (err == nil || err.Code != CodeLimitExceeded) {
				t.Fatalf("got %v, want limit_exceeded", err)
			}
		})
	}
}

// The error points at the construct that went one level too deep, in
// characters of the code as sent.
func TestPrecheckPosition(t *testing.T) {
	code := "const é = 1;\n  f(" + strings.Repeat("[", MaxNesting) + "])"
	err := precheck(code)
	if err == nil {
		t.Fatal("accepted")
	}
	if err.Line != 2 || err.Column != 5+MaxNesting-1 {
		t.Errorf("at %d:%d, want 2:%d", err.Line, err.Column, 5+MaxNesting-1)
	}
	if !strings.Contains(err.Message, "128 levels") {
		t.Errorf("message %q does not give the bound", err.Message)
	}
	err = precheck("`\n${\n'a\\\n'}\n`;\n" + strings.Repeat("(", MaxNesting+1))
	if err == nil || err.Line != 6 || err.Column != MaxNesting+1 {
		t.Errorf("after multi-line literals: %v at %d:%d, want 6:%d", err, err.Line, err.Column, MaxNesting+1)
	}
}

// Every example and test script of the repository passes the checks.
func TestChecksAcceptOrdinaryScripts(t *testing.T) {
	var files []string
	for _, pat := range []string{"../../examples/*.ts", "../../examples/*.js", "../../testdata/hostile/*.js"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d scripts found", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(f), "compile_") {
			// The compile-time attacks end at Compile, quickly.
			start := time.Now()
			_, e := Compile(string(b), 0)
			if e == nil || !strings.Contains(string(b), "// expect: "+string(e.Code)+"\n") {
				t.Errorf("%s: %v, not the expected code", f, e)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s: took %v", f, d)
			}
			continue
		}
		if strings.Contains(string(b), "// expect: limit_exceeded") || strings.Contains(string(b), "// expect: syntax_error") {
			continue
		}
		if _, e := Compile(string(b), 0); e != nil && e.Code != CodeSyntaxError {
			t.Errorf("%s: %v", f, e)
		} else if e != nil && strings.Contains(e.Message, "BigInt") {
			t.Errorf("%s: %v", f, e)
		}
	}
}

func TestCheckASTRefusesBigInt(t *testing.T) {
	tests := []string{
		"return 1n",
		"return (1n << 1000000000000n) > 0n",
		"if (false) { const x = 3n ** 100000000n }\nreturn 1",
		"return 0x1fn",
		"return [1, 2, {a: -5n}]",
		"const f = () => 1_000n; return f()",
		"const x: bigint = 1n; return Number(x)", // through esbuild
		"return `${10n}`",
		"class A { static x = 1n }; return 1",
	}
	for _, code := range tests {
		start := time.Now()
		_, err := Compile(code, 0)
		if err == nil || err.Code != CodeSyntaxError || !strings.Contains(err.Message, "BigInt") {
			t.Errorf("%q: got %v, want a syntax_error about BigInt", code, err)
			continue
		}
		if err.Line < 1 || err.Column < 1 {
			t.Errorf("%q: no position: %v", code, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%q: took %v", code, d)
		}
	}
	// A BigInt literal is located where it is.
	_, err := Compile("const a = 1;\nconst b = [2, 3n];", 0)
	if err == nil || err.Line != 2 || err.Column != 15 {
		t.Errorf("position: %v, want 2:15", err)
	}
}

func TestCheckASTBoundsFoldWork(t *testing.T) {
	tests := []struct {
		name string
		code string
		ok   bool
	}{
		{"short logical chain", "return " + strings.Repeat("0||", 8) + "1", true},
		{"logical chain", "return " + strings.Repeat("0||", 40) + "1", false},
		{"and chain", "return " + strings.Repeat("1&&", 40) + "1", false},
		{"coalesce chain", "return " + strings.Repeat("null??", 40) + "1", false},
		{"logical chain ending in a variable", "return " + strings.Repeat("0||", 40) + "x", false},
		{"logical chain of variables", "return " + strings.Repeat("x||", 1000) + "x", true},
		{"nested in a call", "f(" + strings.Repeat("''||", 40) + "1)", false},
		{"in a condition", "if (" + strings.Repeat("0||", 40) + "1) {}", false},
		{"in a dead branch", "if (false) { return " + strings.Repeat("0||", 40) + "1 }", false},
		{"addition chain of a thousand", "return " + strings.Repeat("x+", 1000) + "x", true},
		{"addition chain of ten thousand", "return " + strings.Repeat("x+", 10000) + "x", false},
		{"constant addition chain", "return " + strings.Repeat("1+", 10000) + "1", false},
		{"many short chains", strings.Repeat("s = a + b + c + d + e + f;\n", 2000), true},
		{"unary minus chain", "return " + strings.Repeat("-(", 60) + "1" + strings.Repeat(")", 60), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Compile(tt.code, 0)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && (err == nil || err.Code != CodeLimitExceeded) {
				t.Fatalf("got %v, want limit_exceeded", err)
			}
		})
	}
}

// The worst code within the size limit that the checks let through still
// compiles quickly. The bound is generous: the machine is shared and noisy
// (nested typed arrows, 0.8 s alone on 2 cores, took 6.4 s beside a full
// test run).
func TestCompileWorstCases(t *testing.T) {
	fill := func(unit string) string { return strings.Repeat(unit, DefaultMaxCodeBytes/len(unit)) }
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "x" + strings.Repeat(close, n)
	}
	cases := map[string]string{
		"nested parens":          fill("f(" + nest("(", ")", MaxNesting-2) + ")\n"),
		"nested typed arrows":    fill("f(" + strings.Repeat("(x:any)=>", MaxNesting-2) + "x)\n"),
		"nested functions":       fill(strings.Repeat("function f(){", MaxNesting-1) + strings.Repeat("}", MaxNesting-1) + "\n"),
		"logical chains":         fill("v=" + strings.Repeat("0||", 16) + "1;\n"),
		"addition chains":        fill("v=" + strings.Repeat("x+", 1000) + "x;\n"),
		"tiny functions":         fill("function f(){}\n"),
		"regexp literals":        fill("/a(b|c)*d/;"),
		"object literals":        fill("v={a:1};"),
		"nested destructuring":   fill("const " + nest("[", "]", MaxNesting-2) + "=y;\n"),
		"long identifier":        "var " + strings.Repeat("a", DefaultMaxCodeBytes-20) + "=1",
		"labels":                 fill("a:"),
		"template substitutions": fill("`${a}${b}`;"),
	}
	for name, code := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			start := time.Now()
			_, err := Compile(code, 0)
			d := time.Since(start)
			t.Logf("%6d bytes %10v %v", len(code), d.Round(time.Microsecond), err)
			if d > 30*time.Second {
				t.Errorf("compiling took %v", d)
			}
		})
	}
}
