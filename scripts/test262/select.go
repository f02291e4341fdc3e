package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A selection is one directory of test262's test/ (slash-separated,
// relative to it), optionally only the files whose names start with Prefix,
// without the subdirectories in Exclude (relative to Dir).
type selection struct {
	Dir     string
	Prefix  string
	Exclude []string
}

// defaultSelections are the directories the comparison covers: the
// built-ins and language parts scripts that call tools actually use.
// Classes are sampled: language/statements/class without its generated
// destructuring (dstr), class-elements (elements), async-generator and
// decorator directories, and the top-level files of
// language/expressions/class (≈ 1,000 of ≈ 8,400 class tests).
var defaultSelections = []selection{
	{Dir: "built-ins/Array"}, {Dir: "built-ins/String"}, {Dir: "built-ins/Object"}, {Dir: "built-ins/JSON"},
	{Dir: "built-ins/Math"}, {Dir: "built-ins/Number"}, {Dir: "built-ins/Map"}, {Dir: "built-ins/Set"},
	{Dir: "built-ins/Promise"}, {Dir: "built-ins/Symbol"}, {Dir: "built-ins/Function"}, {Dir: "built-ins/Reflect"},
	{Dir: "built-ins/Date"}, {Dir: "built-ins/RegExp", Exclude: []string{"property-escapes"}},
	{Dir: "built-ins/Boolean"}, {Dir: "built-ins/Error"},
	{Dir: "built-ins/parseInt"}, {Dir: "built-ins/parseFloat"}, {Dir: "built-ins/isNaN"}, {Dir: "built-ins/isFinite"},
	{Dir: "built-ins/encodeURI"}, {Dir: "built-ins/encodeURIComponent"},
	{Dir: "built-ins/decodeURI"}, {Dir: "built-ins/decodeURIComponent"},
	{Dir: "language/expressions/async-function"}, {Dir: "language/statements/async-function"},
	{Dir: "language/expressions/await"},
	{Dir: "language/expressions/arrow-function"}, {Dir: "language/expressions/template-literal"},
	{Dir: "language/expressions/optional-chaining"},
	{Dir: "language/expressions/array", Prefix: "spread-"}, {Dir: "language/expressions/call", Prefix: "spread-"},
	{Dir: "language/expressions/new", Prefix: "spread-"},
	{Dir: "language/statements/class", Exclude: []string{"dstr", "elements", "async-gen-method", "async-gen-method-static", "decorator"}},
	{Dir: "language/expressions/class", Prefix: "", Exclude: []string{"*"}},
	{Dir: "language/statements/for-of"}, {Dir: "language/statements/try"},
}

// parseSelections turns the -dir flag (comma-separated directories under
// test/, each optionally "dir:prefix") into selections; "" is the default.
func parseSelections(flag string) []selection {
	if strings.TrimSpace(flag) == "" {
		return defaultSelections
	}
	var out []selection
	for _, d := range strings.Split(flag, ",") {
		d = strings.Trim(strings.TrimSpace(d), "/")
		if d == "" {
			continue
		}
		dir, prefix, _ := strings.Cut(d, ":")
		out = append(out, selection{Dir: strings.TrimPrefix(dir, "test/"), Prefix: prefix})
	}
	return out
}

// collect lists the test files of the selections under root (test262's
// checkout), as slash-separated paths relative to root/test, sorted and
// without duplicates. Fixtures (*_FIXTURE.js) are not tests.
func collect(root string, sels []selection) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, s := range sels {
		base := filepath.Join(root, "test", filepath.FromSlash(s.Dir))
		if _, err := os.Stat(base); err != nil {
			return nil, fmt.Errorf("selection %s: %w", s.Dir, err)
		}
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(base, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel != "." && excluded(s.Exclude, rel) {
					return filepath.SkipDir
				}
				return nil
			}
			name := d.Name()
			if !strings.HasSuffix(name, ".js") || strings.Contains(name, "_FIXTURE") || !strings.HasPrefix(name, s.Prefix) {
				return nil
			}
			id := s.Dir + "/" + rel
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// excluded reports whether the directory rel (relative to the selection's
// Dir) is left out: "*" leaves out every subdirectory.
func excluded(ex []string, rel string) bool {
	for _, e := range ex {
		if e == "*" || e == rel {
			return true
		}
	}
	return false
}

// skipReason says why the comparison does not run a test, or "" to run it.
// The wrapper is the body of a strict async function, so modules (import
// and export are not allowed there), raw tests (they must run unchanged)
// and tests only for sloppy mode cannot be run the same way in both;
// nothing else is skipped: a feature goja lacks makes the test fail bare,
// which leaves it out of the comparison.
func skipReason(m Meta) string {
	switch {
	case m.Has("module"):
		return "module"
	case m.Has("raw"):
		return "raw"
	case m.Has("noStrict"):
		return "noStrict"
	case m.Negative != nil && m.Negative.Phase == "resolution":
		return "resolution" // module resolution: modules only
	}
	return ""
}
