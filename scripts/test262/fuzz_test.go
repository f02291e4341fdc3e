package main

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseMeta feeds the front-matter reader anything: it never panics, it
// answers the same twice, and what it reads back are single lines.
func FuzzParseMeta(f *testing.F) {
	for _, s := range []string{
		"/*---\nincludes: [a.js, b.js]\nflags: [async]\n---*/",
		"/*---\nnegative:\n  phase: parse\n  type: SyntaxError\nfeatures:\n  - Symbol\n---*/",
		"/*---\ndescription: >\n  x\n---*/",
		"/*--- ---*/", "/*---", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := parseMeta(src)
		m2, err2 := parseMeta(src)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(m, m2) {
			t.Fatalf("two readings differ: %+v %v / %+v %v", m, err, m2, err2)
		}
		if err != nil {
			return
		}
		for _, list := range [][]string{m.Includes, m.Flags, m.Features} {
			for _, v := range list {
				if strings.ContainsAny(v, "\r\n") {
					t.Errorf("an item spans lines: %q", v)
				}
			}
		}
	})
}
