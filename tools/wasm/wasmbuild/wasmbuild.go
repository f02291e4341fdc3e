// Package wasmbuild builds codemode's WASM tools from source: each
// directory directly under tools/wasm that holds Go files and one
// NAME.tool.json manifest is a tool. The manifest's "module" names the .wasm
// file; "pure": true builds a pooled reactor (-buildmode=c-shared), false a
// command. The go commands inherit the environment (GOFLAGS, GOCACHE, ...),
// so repeated builds come from the build cache.
package wasmbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// self is this package's import path, which locates tools/wasm through
// go list both in the codemode module and in modules that require it.
const self = "github.com/codemode-dev/codemode/tools/wasm/wasmbuild"

// Build builds every tool into outDir (created if missing; "" means
// tools/wasm/build in the source tree), copies each manifest beside its
// module and returns the paths of the manifests written. It must run in the
// codemode module or one that requires it, with go on PATH.
func Build(ctx context.Context, outDir string) ([]string, error) {
	toolsDir, err := locate(ctx)
	if err != nil {
		return nil, err
	}
	if outDir == "" {
		outDir = filepath.Join(toolsDir, "build")
	}
	return build(ctx, toolsDir, outDir)
}

// Module builds one tool, the directory tools/wasm/NAME, into the module out:
// a reactor (for pooled, pure tools) or a command. Tests and benchmarks use it
// to build a tool in both shapes.
func Module(ctx context.Context, name string, reactor bool, out string) error {
	toolsDir, err := locate(ctx)
	if err != nil {
		return err
	}
	if err := buildModule(ctx, filepath.Join(toolsDir, name), reactor, out); err != nil {
		return fmt.Errorf("wasmbuild: %s: %w", name, err)
	}
	return nil
}

// locate finds tools/wasm in the source tree.
func locate(ctx context.Context) (string, error) {
	out, err := goCmd(ctx, "", nil, "list", "-f", "{{.Dir}}", self)
	if err != nil {
		return "", fmt.Errorf("wasmbuild: locating tools/wasm: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(out)), nil
}

// buildModule runs go build for GOOS=wasip1 in a tool's directory, with
// extra flags.
func buildModule(ctx context.Context, dir string, reactor bool, out string, extra ...string) error {
	args := []string{"build", "-trimpath"}
	if reactor {
		args = append(args, "-buildmode=c-shared")
	}
	args = append(append(args, extra...), "-o", out, ".")
	_, err := goCmd(ctx, dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, args...)
	return err
}

// tool is a tool directory and the manifest fields the build needs.
type tool struct {
	dir, manifest string
	Module        string `json:"module"`
	Pure          *bool  `json:"pure"`
}

var moduleName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.wasm$`)

func build(ctx context.Context, toolsDir, outDir string) ([]string, error) {
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		return nil, err
	}
	tools, err := find(toolsDir, outDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("wasmbuild: %w", err)
	}
	var written []string
	for _, t := range tools {
		if err := buildModule(ctx, t.dir, *t.Pure, filepath.Join(outDir, t.Module)); err != nil {
			return written, fmt.Errorf("wasmbuild: %s: %w", t.manifest, err)
		}
		data, err := os.ReadFile(t.manifest)
		if err != nil {
			return written, fmt.Errorf("wasmbuild: %w", err)
		}
		dst := filepath.Join(outDir, filepath.Base(t.manifest))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return written, fmt.Errorf("wasmbuild: %w", err)
		}
		written = append(written, dst)
	}
	return written, nil
}

// find lists the tools under toolsDir in directory order, skipping outDir,
// and checks that their modules and manifests do not collide in outDir.
func find(toolsDir, outDir string) ([]tool, error) {
	entries, err := os.ReadDir(toolsDir)
	if err != nil {
		return nil, fmt.Errorf("wasmbuild: %w", err)
	}
	var tools []tool
	taken := map[string]string{} // file name in outDir → manifest using it
	for _, e := range entries {
		dir := filepath.Join(toolsDir, e.Name())
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") || e.Name() == "testdata" || dir == outDir {
			continue
		}
		manifests, _ := filepath.Glob(filepath.Join(dir, "*.tool.json"))
		goFiles, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(manifests) == 0 || len(goFiles) == 0 {
			continue
		}
		if len(manifests) > 1 {
			return nil, fmt.Errorf("wasmbuild: %s: %d manifests, want one", dir, len(manifests))
		}
		t, err := readManifest(dir, manifests[0])
		if err != nil {
			return nil, err
		}
		for _, name := range []string{t.Module, filepath.Base(t.manifest)} {
			if other, ok := taken[name]; ok {
				return nil, fmt.Errorf("wasmbuild: %s and %s both write %s", other, t.manifest, name)
			}
			taken[name] = t.manifest
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func readManifest(dir, path string) (tool, error) {
	t := tool{dir: dir, manifest: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return t, fmt.Errorf("wasmbuild: %w", err)
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("wasmbuild: %s: %w", path, err)
	}
	switch {
	case !moduleName.MatchString(t.Module):
		return t, fmt.Errorf("wasmbuild: %s: module %q is not a file name ending in .wasm", path, t.Module)
	case t.Pure == nil:
		return t, fmt.Errorf("wasmbuild: %s: no \"pure\": say true (reactor) or false (command)", path)
	}
	return t, nil
}

// goCmd runs go with args in dir with env added to the environment, and
// returns its stdout; an error carries its stderr.
func goCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...) // the last of duplicate keys wins
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("go %s: %w", args[0], err)
		}
		return "", fmt.Errorf("go %s: %w\n%s", args[0], err, msg)
	}
	return stdout.String(), nil
}
