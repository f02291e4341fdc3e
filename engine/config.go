package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits bound a batch or a step of native tool calls. Zero fields mean
// "use the default" in a Config, and "not set" in a request.
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
// Config, and "not set" in a request, which may only tighten them.
type ScriptLimits struct {
	Timeout        Duration `json:"timeout,omitempty"`        // wall time, not counting approval waits
	MaxToolCalls   int      `json:"maxToolCalls,omitempty"`   // tool calls per run
	MaxConcurrency int      `json:"maxConcurrency,omitempty"` // tool calls running at once
	MaxOutputChars int      `json:"maxOutputChars,omitempty"` // result and logs together, in characters
	MaxCodeBytes   int      `json:"maxCodeBytes,omitempty"`   // size of the code
	MaxMemoryBytes int64    `json:"maxMemoryBytes,omitempty"` // heap growth the script may cause
	MaxCallDepth   int      `json:"maxCallDepth,omitempty"`   // JavaScript call-stack frames
}

// Config is the engine's configuration: limits, per-tool overrides and the
// approval timeout. It can be built in Go or read from JSON with LoadConfig.
type Config struct {
	Limits Limits `json:"limits"`
	// Script bounds code-mode runs.
	Script ScriptLimits `json:"script"`
	// Tools holds per-tool overrides keyed by tool name.
	Tools map[string]ToolLimits `json:"tools,omitempty"`
	// ApprovalTimeout bounds how long a call waits for the Approver; a call
	// whose approval times out is denied. The wait is not billed to the run's
	// own timeout.
	ApprovalTimeout Duration `json:"approvalTimeout,omitempty"`
}

// Defaults of the contract.
const (
	DefaultMaxOperations     = 100
	DefaultMaxConcurrency    = 8
	DefaultCallTimeout       = 30 * time.Second
	DefaultBatchTimeout      = 60 * time.Second
	DefaultMaxResultChars    = 50_000
	DefaultMaxAggregateChars = 200_000
	DefaultApprovalTimeout   = 5 * time.Minute

	DefaultScriptTimeout        = 30 * time.Second
	DefaultScriptMaxToolCalls   = 200
	DefaultScriptMaxConcurrency = 8
	DefaultScriptMaxOutputChars = 50_000
	DefaultScriptMaxCodeBytes   = 64 << 10
	DefaultScriptMaxMemoryBytes = 256 << 20
	DefaultScriptMaxCallDepth   = 1000
)

// DefaultConfig returns the contract's defaults.
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
	fill(&c.ApprovalTimeout, d.ApprovalTimeout)
	return c
}

func fill[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// check reports negative limits and overrides for tools that do not exist,
// every one of them, in a stable order.
func (c Config) check(tools map[string]*registered) []error {
	var errs []error
	l := c.Limits
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"maxOperations", int64(l.MaxOperations)}, {"maxConcurrency", int64(l.MaxConcurrency)},
		{"callTimeout", int64(l.CallTimeout)}, {"batchTimeout", int64(l.BatchTimeout)},
		{"maxResultChars", int64(l.MaxResultChars)}, {"maxAggregateChars", int64(l.MaxAggregateChars)},
		{"script.timeout", int64(c.Script.Timeout)}, {"script.maxToolCalls", int64(c.Script.MaxToolCalls)},
		{"script.maxConcurrency", int64(c.Script.MaxConcurrency)}, {"script.maxOutputChars", int64(c.Script.MaxOutputChars)},
		{"script.maxCodeBytes", int64(c.Script.MaxCodeBytes)}, {"script.maxMemoryBytes", c.Script.MaxMemoryBytes},
		{"script.maxCallDepth", int64(c.Script.MaxCallDepth)},
	} {
		if f.v < 0 {
			name := "limits." + f.name
			if strings.HasPrefix(f.name, "script.") {
				name = f.name
			}
			errs = append(errs, fmt.Errorf("config: %s must not be negative", name))
		}
	}
	if c.ApprovalTimeout < 0 {
		errs = append(errs, fmt.Errorf("config: approvalTimeout must not be negative"))
	}
	names := make([]string, 0, len(c.Tools))
	for name := range c.Tools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t := c.Tools[name]
		if _, ok := tools[name]; !ok {
			errs = append(errs, fmt.Errorf("config: tools.%s: no such tool", name))
		}
		if t.Timeout < 0 || t.MaxResultChars < 0 {
			errs = append(errs, fmt.Errorf("config: tools.%s: limits must not be negative", name))
		}
	}
	return errs
}

// LoadConfig reads a JSON config file. Unknown fields are errors, so a typo
// in a limit's name cannot silently leave the default in force. Missing fields
// keep their defaults.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses a JSON config document; see LoadConfig.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("config: unexpected data after the JSON object")
	}
	return cfg.withDefaults(), nil
}

// Duration is a time.Duration that reads from JSON as either a number of
// milliseconds (30000) or a Go duration string ("30s", "1m30s"), and writes
// as a duration string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q (want e.g. \"30s\" or a number of milliseconds)", s)
		}
		*d = Duration(v)
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > float64(math.MaxInt64/int64(time.Millisecond)) {
		return fmt.Errorf("invalid duration %s (want e.g. \"30s\" or a number of milliseconds)", b)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}
