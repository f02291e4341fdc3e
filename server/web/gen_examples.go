//go:build ignore

// gen_examples copies the repository's examples (scripts and batch requests)
// into static/examples/, where the app's embed.FS can hold them, and removes
// copies whose original is gone. Run it with `go generate ./server/web`;
// TestExampleCopies fails until it has been run after an example changed.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	if err := copyExamples("../../examples", "static/examples"); err != nil {
		fmt.Fprintln(os.Stderr, "gen_examples:", err)
		os.Exit(1)
	}
}

func copyExamples(from, to string) error {
	exts := []string{".ts", ".js", ".json"} // web.ExampleExts
	want := map[string]bool{}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !slices.Contains(exts, filepath.Ext(e.Name())) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			return err
		}
		want[e.Name()] = true
	}
	copies, err := os.ReadDir(to)
	if err != nil {
		return err
	}
	for _, e := range copies {
		if !want[e.Name()] {
			if err := os.Remove(filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
