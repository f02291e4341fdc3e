package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/internal/suggest"
	"github.com/codemode-dev/codemode/sandbox/js"
)

// Limits bound a batch or a step of native tool calls. Zero fields mean
// "use the default" in a Config built in Go, and "not set" in a request; in
// JSON a limit that is given must be positive (see docs/config.md).
type Limits struct {
	MaxOperations     int      `json:"maxOperations,omitempty"`     // operations in one batch
	MaxConcurrency    int      `json:"maxConcurrency,omitempty"`    // calls running at once
	CallTimeout       Duration `json:"callTimeout,omitempty"`       // per tool call
	BatchTimeout      Duration `json:"batchTimeout,omitempty"`      // whole batch
	MaxResultChars    int      `json:"maxResultChars,omitempty"`    // one result, in characters of its JSON
	MaxAggregateChars int      `json:"maxAggregateChars,omitempty"` // all results of one batch together
}

// ToolLimits override Limits for one tool.
type ToolLimits struct {
	Timeout        Duration `json:"timeout,omitempty"`
	MaxResultChars int      `json:"maxResultChars,omitempty"`
}

// ScriptLimits bound a code-mode run. Zero fields mean "use the default" in a
// Config built in Go, and "not set" in a request, which may only tighten them;
// in JSON a limit that is given must be positive.
type ScriptLimits struct {
	Timeout        Duration `json:"timeout,omitempty"`        // wall time, not counting approval waits
	MaxToolCalls   int      `json:"maxToolCalls,omitempty"`   // tool calls per run
	MaxConcurrency int      `json:"maxConcurrency,omitempty"` // tool calls running at once
	MaxOutputChars int      `json:"maxOutputChars,omitempty"` // result and logs together, in characters
	MaxCodeBytes   int      `json:"maxCodeBytes,omitempty"`   // size of the code
	MaxMemoryBytes int64    `json:"maxMemoryBytes,omitempty"` // heap growth the script may cause
	MaxCallDepth   int      `json:"maxCallDepth,omitempty"`   // JavaScript call-stack frames
	// MaxDeclarationChars bounds the tools' TypeScript declarations in the
	// execute_code description; over it, the description names the
	// namespaces and tools and points to search_tools instead. A setting of
	// the definitions, not a limit a request may give.
	MaxDeclarationChars int `json:"maxDeclarationChars,omitempty"`
}

// Config is the engine's configuration: limits, per-tool overrides and the
// approval timeout. It can be built in Go or read from JSON with LoadConfig.
type Config struct {
	Limits Limits `json:"limits"`
	// Script bounds code-mode runs.
	Script ScriptLimits `json:"script"`
	// Tools holds per-tool overrides keyed by tool name.
	Tools map[string]ToolLimits `json:"tools,omitempty"`
	// ApprovalTimeout bounds how long a run waits for the Approver, all its
	// approval sets together: a set may wait what the run's earlier sets
	// left, and a set asked once they have used it up is denied at once. A
	// call whose approval times out is denied ("approval timed out after
	// ..."). The wait is not billed to the run's own timeout: approvals add
	// at most this much to how long a run takes.
	ApprovalTimeout Duration `json:"approvalTimeout,omitempty"`
	// MCPServers are upstream MCP servers by name, for the host to connect
	// (bindings/mcp); the engine only checks them.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty"`
	// OpenAPI are HTTP APIs by name, described by OpenAPI documents, for
	// the host to bind (bindings/openapi); the engine only checks them.
	OpenAPI map[string]OpenAPI `json:"openapi,omitempty"`
}

// The defaults (docs/config.md). A script's are the sandbox's own (sandbox/js),
// so that the two cannot drift apart.
const (
	DefaultMaxOperations     = 100
	DefaultMaxConcurrency    = 8
	DefaultCallTimeout       = 30 * time.Second
	DefaultBatchTimeout      = 60 * time.Second
	DefaultMaxResultChars    = 50_000
	DefaultMaxAggregateChars = 200_000
	DefaultApprovalTimeout   = 5 * time.Minute

	DefaultScriptTimeout        = js.DefaultTimeout
	DefaultScriptMaxToolCalls   = js.DefaultMaxToolCalls
	DefaultScriptMaxConcurrency = 8
	DefaultScriptMaxOutputChars = js.DefaultMaxOutputChars
	DefaultScriptMaxCodeBytes   = js.DefaultMaxCodeBytes
	DefaultScriptMaxMemoryBytes = js.DefaultMaxMemoryBytes
	DefaultScriptMaxCallDepth   = js.DefaultMaxCallDepth
	// About 10,000 tokens: the whiteboard's 13 tools declare in about 11,000.
	DefaultScriptMaxDeclarationChars = 40_000
)

// DefaultConfig returns the defaults: every limit set to its Default… constant.
func DefaultConfig() Config {
	return Config{
		Limits: Limits{
			MaxOperations:     DefaultMaxOperations,
			MaxConcurrency:    DefaultMaxConcurrency,
			CallTimeout:       Duration(DefaultCallTimeout),
			BatchTimeout:      Duration(DefaultBatchTimeout),
			MaxResultChars:    DefaultMaxResultChars,
			MaxAggregateChars: DefaultMaxAggregateChars,
		},
		Script: ScriptLimits{
			Timeout:        Duration(DefaultScriptTimeout),
			MaxToolCalls:   DefaultScriptMaxToolCalls,
			MaxConcurrency: DefaultScriptMaxConcurrency,
			MaxOutputChars: DefaultScriptMaxOutputChars,
			MaxCodeBytes:   DefaultScriptMaxCodeBytes,
			MaxMemoryBytes: DefaultScriptMaxMemoryBytes,
			MaxCallDepth:   DefaultScriptMaxCallDepth,

			MaxDeclarationChars: DefaultScriptMaxDeclarationChars,
		},
		ApprovalTimeout: Duration(DefaultApprovalTimeout),
	}
}

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	l := &c.Limits
	fill(&l.MaxOperations, d.Limits.MaxOperations)
	fill(&l.MaxConcurrency, d.Limits.MaxConcurrency)
	fill(&l.CallTimeout, d.Limits.CallTimeout)
	fill(&l.BatchTimeout, d.Limits.BatchTimeout)
	fill(&l.MaxResultChars, d.Limits.MaxResultChars)
	fill(&l.MaxAggregateChars, d.Limits.MaxAggregateChars)
	sl, ds := &c.Script, d.Script
	fill(&sl.Timeout, ds.Timeout)
	fill(&sl.MaxToolCalls, ds.MaxToolCalls)
	fill(&sl.MaxConcurrency, ds.MaxConcurrency)
	fill(&sl.MaxOutputChars, ds.MaxOutputChars)
	fill(&sl.MaxCodeBytes, ds.MaxCodeBytes)
	fill(&sl.MaxMemoryBytes, ds.MaxMemoryBytes)
	fill(&sl.MaxCallDepth, ds.MaxCallDepth)
	fill(&sl.MaxDeclarationChars, ds.MaxDeclarationChars)
	fill(&c.ApprovalTimeout, d.ApprovalTimeout)
	return c
}

func fill[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// problems adds the configuration's own problems to p: every limit must be
// positive. A zero limit means the default in Go, but in a document it was
// written as 0 (p.Given), which is no limit codemode can use. Paths follow
// strictjson's notation: limits.maxOperations, tools["graph.layout"].timeout.
func (c *Config) problems(p *strictjson.Problems) {
	l := &c.Limits
	positive(p, "limits.maxOperations", l.MaxOperations)
	positive(p, "limits.maxConcurrency", l.MaxConcurrency)
	positive(p, "limits.callTimeout", l.CallTimeout)
	positive(p, "limits.batchTimeout", l.BatchTimeout)
	positive(p, "limits.maxResultChars", l.MaxResultChars)
	positive(p, "limits.maxAggregateChars", l.MaxAggregateChars)
	c.Script.problems(p, "script")
	positive(p, "script.maxDeclarationChars", c.Script.MaxDeclarationChars)
	positive(p, "approvalTimeout", c.ApprovalTimeout)
	for _, name := range slices.Sorted(maps.Keys(c.Tools)) {
		t, at := c.Tools[name], strictjson.Member("tools", name)
		positive(p, strictjson.Member(at, "timeout"), t.Timeout)
		positive(p, strictjson.Member(at, "maxResultChars"), t.MaxResultChars)
	}
	c.mcpProblems(p)
	c.openAPIProblems(p)
}

// problems adds the problems of script limits at path (in a config, or in a
// request) to p.
func (s *ScriptLimits) problems(p *strictjson.Problems, path string) {
	positive(p, strictjson.Member(path, "timeout"), s.Timeout)
	positive(p, strictjson.Member(path, "maxToolCalls"), s.MaxToolCalls)
	positive(p, strictjson.Member(path, "maxConcurrency"), s.MaxConcurrency)
	positive(p, strictjson.Member(path, "maxOutputChars"), s.MaxOutputChars)
	positive(p, strictjson.Member(path, "maxCodeBytes"), s.MaxCodeBytes)
	positive(p, strictjson.Member(path, "maxMemoryBytes"), s.MaxMemoryBytes)
	positive(p, strictjson.Member(path, "maxCallDepth"), s.MaxCallDepth)
}

// positive adds a problem for a limit that is negative, or that a document
// gave as 0.
func positive[T ~int | ~int64](p *strictjson.Problems, path string, v T) {
	if v < 0 || (v == 0 && p.Given(path)) {
		p.Addf(path, "%s", strictjson.NotPositive(fmt.Sprint(v)))
	}
}

// toolProblems reports the overrides for tools the engine does not have.
func (c *Config) toolProblems(p *strictjson.Problems, tools map[string]*registered, names []string) {
	for _, name := range slices.Sorted(maps.Keys(c.Tools)) {
		if _, ok := tools[name]; ok {
			continue
		}
		msg := "no such tool"
		if s := suggest.Names(name, names); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %q?)", s[0])
		}
		p.Addf(strictjson.Member("tools", name), "%s", msg)
	}
}

// LoadConfig reads a JSON config file; see ParseConfig. Its errors are
// bad_request *Errors naming the file.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, WrapError(CodeBadRequest, err)
	}
	cfg, p := parseConfig(data)
	if err := problemsError("config "+path+": ", p); err != nil {
		return Config{}, err
	}
	cfg.resolveSpecPaths(filepath.Dir(path))
	return cfg, nil
}

// ParseConfig parses a JSON config document strictly: trailing data, unknown
// fields (so a typo in a limit's name cannot silently leave the default in
// force), values of the wrong type and limits that are not positive are
// errors, all of them reported at once in one bad_request *Error. Missing
// fields keep their defaults.
func ParseConfig(data []byte) (Config, error) {
	cfg, p := parseConfig(data)
	if err := problemsError("config: ", p); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func parseConfig(data []byte) (Config, *strictjson.Problems) {
	var cfg Config
	p := strictjson.Decode(data, &cfg)
	if !p.Broken() {
		cfg.problems(p)
	}
	return cfg.withDefaults(), p
}

// problemsError is one bad_request *Error listing every problem of p after
// prefix, or nil when there is none. It unwraps to the problems.
func problemsError(prefix string, p *strictjson.Problems) *Error {
	err := p.Err()
	if err == nil {
		return nil
	}
	return (&Error{Code: CodeBadRequest, Message: prefix + err.Error(), cause: err}).bounded()
}

// Duration is a time.Duration that reads from JSON as either a number of
// milliseconds (30000) or a Go duration string ("30s", "1m30s"), and writes
// as a duration string. It is also a flag.Value (Set, String) that reads
// command-line flags the same way: see ParseDuration.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String is the Go duration string: "30s", "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }

// Set reads a flag's value with ParseDuration.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDuration reads a timeout the one way codemode reads them everywhere
// (requests, config files, manifests, command-line flags): a plain number is
// milliseconds ("5000", "1.5"), anything else a Go duration ("30s", "1m30s",
// "250ms"). It must be positive: 0 and negative values are errors that say to
// leave the value out for the default.
func ParseDuration(s string) (Duration, error) {
	text := strings.TrimSpace(s)
	var d time.Duration
	if isDecimal(text) {
		ms, err := strconv.ParseFloat(text, 64)
		if err != nil || math.Abs(ms) > float64(math.MaxInt64/int64(time.Millisecond)) {
			return 0, fmt.Errorf("%s milliseconds is too long", clip(text, maxQuoteChars))
		}
		d = time.Duration(ms * float64(time.Millisecond))
		if d == 0 && ms > 0 {
			return 0, fmt.Errorf("%s milliseconds is less than a nanosecond", clip(text, maxQuoteChars))
		}
	} else {
		v, err := time.ParseDuration(text)
		if err != nil {
			return 0, fmt.Errorf("%s is not a duration (want milliseconds, or a Go duration such as \"30s\", \"1m30s\" or \"250ms\")", quote(s))
		}
		d = v
	}
	if d <= 0 {
		return 0, errors.New(strictjson.NotPositive(clip(text, maxQuoteChars)))
	}
	return Duration(d), nil
}

// isDecimal reports whether s is a number as JSON writes them: an optional
// minus, digits, an optional fraction and exponent ("Inf", "0x10" are not).
func isDecimal(s string) bool {
	i, n := 0, len(s)
	digits := func() bool {
		j := i
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < n && s[i] == '-' {
		i++
	}
	if !digits() {
		return false
	}
	if i < n && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == n
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a number of milliseconds or a duration string with
// ParseDuration; null leaves d as it is.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var text string
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		text = string(b)
	default:
		return fmt.Errorf("want a number of milliseconds or a duration string such as \"30s\", got %s", strictjson.Describe(b))
	}
	v, err := ParseDuration(text)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
