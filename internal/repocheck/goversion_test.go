package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEGoVersion: the Go the README asks for is enough for go.mod. A
// go directive of 1.26.8 makes Go 1.26.0-1.26.7 fetch a toolchain, which
// fails offline, while the README says "Go 1.26 or newer".
func TestREADMEGoVersion(t *testing.T) {
	root := repoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	r := regexp.MustCompile(`With Go (\d+\.\d+(?:\.\d+)?) or newer`).FindSubmatch(readme)
	if r == nil {
		t.Fatal(`README.md does not say "With Go X or newer"`)
	}
	need, said := string(m[1]), string(r[1])
	if strings.Count(said, ".") == 1 {
		said += ".0"
	}
	if need != said {
		t.Errorf("go.mod needs Go %s, README.md asks for Go %s or newer", need, r[1])
	}
}
