// Package builtin holds codemode's own WASM tools, graph.layout and
// text.cluster (their sources are under tools/wasm), inside the program:
// their manifests and their modules, compressed, in modules/ (embedded).
// Load makes them tools of a wasmtool.Loader, which reads and compiles a
// module only at its tool's first call; a program that never calls them
// pays for nothing but the few hundred kilobytes of their manifests'
// schemas and the compressed modules in its binary.
//
// The modules are built from source by the generator below, and checked in:
// a fresh clone needs no build step. They are rebuilt only when their
// sources change (modules/sources.txt records a hash of what each is built
// from; see wasmbuild.Embed), and TestSourcesUnchanged fails, naming the
// command, when the recorded hash no longer matches the sources.
//
//go:generate go run ../wasmbuild/cmd -embed modules
package builtin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

//go:embed modules
var modules embed.FS

// Origin is the Origin of the tools Load returns.
const Origin = "built-in WASM"

// Tool is one built-in tool.
type Tool struct {
	Manifest []byte   // its NAME.tool.json
	File     string   // its compressed module in modules/, NAME.wasm.gz
	Hash     [32]byte // the SHA-256 of its module, uncompressed
	Bytes    int64    // the module's size, uncompressed
}

// Tools lists the built-in tools, in the order of modules/sources.txt.
func Tools() ([]Tool, error) {
	data, err := modules.ReadFile("modules/" + wasmbuild.SumsFile)
	if err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	sums, err := wasmbuild.ReadSums(data)
	if err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	var tools []Tool
	for _, s := range sums {
		name := strings.TrimSuffix(s.File, ".wasm.gz")
		manifest, err := modules.ReadFile(path.Join("modules", name+wasmbuild.ManifestSuffix))
		if err != nil {
			return nil, fmt.Errorf("builtin: %w", err)
		}
		h, err := hex.DecodeString(strings.TrimPrefix(s.Module, "sha256:"))
		if err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("builtin: %s: %s is not a SHA-256", s.File, s.Module)
		}
		tools = append(tools, Tool{Manifest: manifest, File: s.File, Hash: [32]byte(h), Bytes: s.Bytes})
	}
	return tools, nil
}

// Read decompresses the tool's module and checks it against its recorded
// size and hash.
func (t Tool) Read() ([]byte, error) {
	gz, err := modules.ReadFile("modules/" + t.File)
	if err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	bin, err := wasmbuild.Decompress(bytes.NewReader(gz), t.Bytes)
	if err != nil {
		return nil, fmt.Errorf("builtin: %s: %w", t.File, err)
	}
	if sha256.Sum256(bin) != t.Hash {
		return nil, fmt.Errorf("builtin: %s: the module does not match its recorded hash", t.File)
	}
	return bin, nil
}

// Source is the module as the loader reads it: known by its hash, so that
// a process whose cache has it prepared never decompresses it.
func (t Tool) Source() wasm.Source {
	return wasm.Source{Hash: t.Hash, Read: t.Read}
}

// Load returns the built-in tools as tools of l, sorted by name, each with
// Origin "built-in WASM". Nothing of their modules is read until a tool's
// first call.
func Load(ctx context.Context, l *wasmtool.Loader) ([]engine.Tool, error) {
	tools, err := Tools()
	if err != nil {
		return nil, err
	}
	var out []engine.Tool
	for _, t := range tools {
		tool, err := l.LoadEmbedded(ctx, wasmtool.Embedded{Manifest: t.Manifest, Origin: Origin, Module: t.Source()})
		if err != nil {
			return nil, err
		}
		out = append(out, tool)
	}
	slices.SortFunc(out, func(a, b engine.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
