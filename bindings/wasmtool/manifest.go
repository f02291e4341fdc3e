package wasmtool

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
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
// module name, from base, the manifest's file name). It is strict: trailing
// data, unknown fields (so a misspelt limit cannot silently leave a default
// in force), names in the wrong case, fields given twice, values of the wrong
// type and invalid values are errors. Every problem is reported at once, each
// with its path (mounts[0].guest), in one *engine.Error (bad_request) whose
// message lists them separated by "; ".
func ParseManifest(data []byte, dir, base string) (Manifest, error) {
	if len(data) > maxManifest {
		return Manifest{}, engine.Errorf(engine.CodeBadRequest, "manifest is over %d bytes", maxManifest)
	}
	var m Manifest
	p := strictjson.Decode(data, &m)
	if !p.Broken() {
		m.check(p, dir, base)
	}
	if err := p.Err(); err != nil {
		return Manifest{}, engine.WrapError(engine.CodeBadRequest, err)
	}
	return m, nil
}

// check adds the manifest's own problems to p, and resolves its paths.
func (m *Manifest) check(p *strictjson.Problems, dir, base string) {
	if !engine.ValidName(m.Name) {
		p.Addf("name", "%s: want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots, e.g. graph.layout", strictjson.Quote(m.Name))
	}
	if strings.TrimSpace(m.Description) == "" {
		p.Addf("description", "missing (it is what a model reads to decide when to call the tool)")
	} else if n := len([]rune(m.Description)); n > maxDescRunes {
		p.Addf("description", "%d characters, over %d", n, maxDescRunes)
	}
	if err := checkObjectSchema(m.InputSchema, true); err != nil {
		p.Addf("inputSchema", "%v", err)
	}
	if err := checkObjectSchema(m.OutputSchema, false); err != nil {
		p.Addf("outputSchema", "%v", err)
	}
	if m.Memory != 0 && (m.Memory < minMemory || m.Memory > wasm.MaxMemoryBytes) {
		p.Addf("memory", "%s is outside 64KiB..4GiB", m.Memory)
	}
	if m.Timeout.D() > MaxTimeout {
		p.Addf("timeout", "%v is over the most a call may take, %v", m.Timeout.D(), MaxTimeout)
	}
	if m.MaxOutput > math.MaxInt32 {
		p.Addf("maxOutput", "%s is over 2GiB", m.MaxOutput)
	}
	if m.Module == "" {
		m.Module = strings.TrimSuffix(base, ManifestSuffix) + ".wasm"
	}
	if filepath.Ext(m.Module) != ".wasm" {
		p.Addf("module", "%s is not a .wasm file", strictjson.Quote(m.Module))
	}
	if !filepath.IsAbs(m.Module) {
		m.Module = filepath.Join(dir, m.Module)
	}
	for i := range m.Mounts {
		mt, at := &m.Mounts[i], strictjson.Index("mounts", i)
		if mt.Host == "" || mt.Guest == "" {
			p.Addf(at, "want both host and guest")
			continue
		}
		if !wasm.ValidGuestPath(mt.Guest) {
			p.Addf(at+".guest", "%s: want an absolute, clean path such as /data", strictjson.Quote(mt.Guest))
		}
		if !filepath.IsAbs(mt.Host) {
			mt.Host = filepath.Join(dir, mt.Host)
		}
	}
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

// UnmarshalJSON reads a number of bytes or a string with a unit; it must be
// positive. null leaves s as it is. A value that cannot be read is shown by
// its first characters only (strictjson.Excerpt, strictjson.Quote).
func (s *Size) UnmarshalJSON(b []byte) error {
	var v Size
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		n, err := parseSize(str)
		if err != nil {
			return err
		}
		v = n
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		n, err := sizeNumber(string(b))
		if err != nil {
			return err
		}
		v = n
	default:
		return fmt.Errorf("want a number of bytes or a string such as \"64MiB\", got %s", strictjson.Describe(b))
	}
	if v <= 0 {
		return errors.New(strictjson.NotPositive(string(b)))
	}
	*s = v
	return nil
}

// sizeNumber reads a JSON number as a number of bytes: a whole number
// without fraction or exponent. Zero and negative numbers, whole or not, are
// not positive; a whole number past int64 is too large.
func sizeNumber(num string) (Size, error) {
	n, err := strconv.ParseInt(num, 10, 64)
	if err == nil {
		return Size(n), nil
	}
	mantissa, _, _ := strings.Cut(strings.ToLower(num), "e")
	if num[0] == '-' || strings.Trim(mantissa, "0.") == "" {
		return 0, errors.New(strictjson.NotPositive(num))
	}
	// ParseFloat's ErrRange (a magnitude past float64) comes with ±Inf,
	// which compares as wanted.
	if f, _ := strconv.ParseFloat(num, 64); f >= math.MaxInt64 {
		return 0, fmt.Errorf("%s is too large", strictjson.Excerpt(num))
	}
	return 0, fmt.Errorf("want a whole number of bytes or a string such as \"64MiB\", got %s", strictjson.Describe([]byte(num)))
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
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is not a size (want e.g. \"64MiB\", \"512KiB\" or a number of bytes)", strictjson.Quote(str))
	case err == nil && n <= 0, err != nil && strings.HasPrefix(num, "-"):
		return 0, errors.New(strictjson.NotPositive(strictjson.Quote(str)))
	case err != nil || n > math.MaxInt64/mult:
		return 0, fmt.Errorf("%s is too large", strictjson.Quote(str))
	}
	return Size(n * mult), nil
}
