package js

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCompile feeds arbitrary code to Compile (goja's parser, then esbuild's
// TypeScript transform and the source-map position mapping): it must never
// panic, and a syntax error's position must lie inside the code as sent.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		"return 1",
		"const x: number = 1;\nreturn x",
		"interface A { a: string }\nconst b = {} as A;\nreturn b.",
		"return (",
		"})(); (function () {",
		"`${",
		"/* unterminated",
		"let é = 'ü'; return é +",
		"//# sourceMappingURL=/etc/passwd\nreturn 1",
		"enum E { A, B }\nreturn E.C +;",
		"\n\n\n)",
		"return 1n",
		"return 0||0||0||x",
		"a:b:c:;",
		"return `${`${'}'}`}`",
		"return x=>!-typeof await new y",
		"return a / (b) / /[/(]/g",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		s, err := Compile(code, 0)
		if err == nil {
			if s == nil || s.prg == nil {
				t.Fatal("no error and no program")
			}
			return
		}
		if err.Code != CodeSyntaxError && err.Code != CodeLimitExceeded {
			t.Fatalf("code %q: %v", err.Code, err)
		}
		if err.Line == 0 {
			return // some errors have no position (invalid UTF-8, size)
		}
		lines := strings.Split(code, "\n")
		if err.Line < 1 || err.Line > len(lines) {
			t.Fatalf("line %d outside 1..%d: %v", err.Line, len(lines), err)
		}
		if n := utf8.RuneCountInString(lines[err.Line-1]); err.Column < 1 || err.Column > n+1 {
			t.Fatalf("column %d outside 1..%d on line %d: %v", err.Column, n+1, err.Line, err)
		}
	})
}
