package wasmtool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// ManifestSuffix ends the name of a manifest file: NAME.tool.json beside
// the module it describes (by default NAME.wasm).
const ManifestSuffix = ".tool.json"

// Manifest is a WASM tool's sidecar file: what a model sees of the tool, and
// how the module may run. Its JSON shape is documented in docs/wasm.md.
type Manifest struct {
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	Module       string             `json:"module,omitempty"` // the .wasm, relative to the manifest
	InputSchema  json.RawMessage    `json:"inputSchema"`
	OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
	Annotations  engine.Annotations `json:"annotations"`
	Memory       Size               `json:"memory,omitempty"`  // linear memory limit per instance
	Timeout      engine.Duration    `json:"timeout,omitempty"` // per call
	// MaxOutput caps stdout (the result) per call.
	MaxOutput Size `json:"maxOutput,omitempty"`
	// Mounts grant read-only directories; nothing else of the host's file
	// system is visible.
	Mounts []MountSpec `json:"mounts,omitempty"`
	// Pure declares that the tool keeps no state between calls and has no
	// effects, so instances may be reused (pooled mode). Its module must be a
	// WASI reactor exporting codemode_call.
	Pure bool `json:"pure,omitempty"`
}

// MountSpec is one read-only directory of a manifest.
type MountSpec struct {
	Host  string `json:"host"`  // relative to the manifest's directory, or absolute
	Guest string `json:"guest"` // absolute path inside the module
}

// Limits of manifest values.
const (
	MaxTimeout   = 10 * time.Minute
	minMemory    = 64 << 10
	maxManifest  = 1 << 20
	maxDescRunes = 4096
)

// ParseManifest decodes and checks a manifest. dir is the manifest's
// directory, against which relative paths are resolved (and the default
// module name, from base, the manifest's file name). Unknown fields are
// errors, so a misspelt limit cannot silently leave a default in force;
// every problem is reported at once.
func ParseManifest(data []byte, dir, base string) (Manifest, error) {
	var m Manifest
	if len(data) > maxManifest {
		return m, fmt.Errorf("manifest is over %d bytes", maxManifest)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	if dec.More() {
		return Manifest{}, errors.New("manifest: unexpected data after the JSON object")
	}
	given, errs := checkFieldNames(data)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, f := range []struct {
		name string
		zero bool
	}{{"memory", m.Memory == 0}, {"timeout", m.Timeout == 0}, {"maxOutput", m.MaxOutput == 0}} {
		if given[f.name] && f.zero {
			bad("%s: 0 is no limit codemode can use; leave the field out for the default", f.name)
		}
	}
	if !engine.ValidName(m.Name) {
		bad("name %q: want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots, e.g. graph.layout", m.Name)
	}
	if strings.TrimSpace(m.Description) == "" {
		bad("description: missing (it is what a model reads to decide when to call the tool)")
	} else if n := len([]rune(m.Description)); n > maxDescRunes {
		bad("description: %d characters, over %d", n, maxDescRunes)
	}
	if err := checkObjectSchema(m.InputSchema, true); err != nil {
		bad("inputSchema: %v", err)
	}
	if err := checkObjectSchema(m.OutputSchema, false); err != nil {
		bad("outputSchema: %v", err)
	}
	if m.Memory != 0 && (m.Memory < minMemory || m.Memory > wasm.MaxMemoryBytes) {
		bad("memory: %s is outside 64KiB..4GiB", m.Memory)
	}
	if m.Timeout < 0 || m.Timeout.D() > MaxTimeout {
		bad("timeout: %v is outside 0..%v", m.Timeout.D(), MaxTimeout)
	}
	if m.MaxOutput < 0 || m.MaxOutput > math.MaxInt32 {
		bad("maxOutput: %s is out of range", m.MaxOutput)
	}
	if m.Module == "" {
		m.Module = strings.TrimSuffix(base, ManifestSuffix) + ".wasm"
	}
	if filepath.Ext(m.Module) != ".wasm" {
		bad("module: %q is not a .wasm file", m.Module)
	}
	if !filepath.IsAbs(m.Module) {
		m.Module = filepath.Join(dir, m.Module)
	}
	for i := range m.Mounts {
		mt := &m.Mounts[i]
		if mt.Host == "" || mt.Guest == "" {
			bad("mounts[%d]: want both host and guest", i)
			continue
		}
		if !wasm.ValidGuestPath(mt.Guest) {
			bad("mounts[%d].guest %q: want an absolute, clean path such as /data", i, mt.Guest)
		}
		if !filepath.IsAbs(mt.Host) {
			mt.Host = filepath.Join(dir, mt.Host)
		}
	}
	return m, errors.Join(errs...)
}

// checkObjectSchema checks that a schema is a JSON object whose root is
// {"type": "object"}, as MCP and the model APIs require.
func checkObjectSchema(s json.RawMessage, required bool) error {
	if len(s) == 0 {
		if required {
			return errors.New(`missing (want a JSON Schema with "type": "object")`)
		}
		return nil
	}
	var root map[string]any
	if err := json.Unmarshal(s, &root); err != nil {
		return errors.New("not a JSON object")
	}
	if root["type"] != "object" {
		return errors.New(`the root must have "type": "object"`)
	}
	return nil
}

// Size is a number of bytes, written in a manifest as a number or a string
// with a binary unit: 67108864, "64MiB", "512KiB", "1GiB".
type Size int64

func (s Size) String() string {
	for _, u := range sizeUnits {
		if s != 0 && s%Size(u.n) == 0 {
			return strconv.FormatInt(int64(s)/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

var sizeUnits = []struct {
	name string
	n    int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

func (s Size) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

func (s *Size) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("invalid size %s (want bytes or a string like \"64MiB\")", b)
		}
		*s = Size(n)
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, err := parseSize(str)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

func parseSize(str string) (Size, error) {
	num, mult := strings.TrimSpace(str), int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.name); ok {
			num, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	num = strings.TrimSuffix(num, "B")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid size %q (want e.g. \"64MiB\", \"512KiB\" or a number of bytes)", str)
	}
	return Size(n * mult), nil
}
