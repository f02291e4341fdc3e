package engine

import (
	"errors"
	"fmt"
	"sort"

	"github.com/codemode-dev/codemode/engine/internal/schema"
)

// Builder collects tools and options; Build compiles them into an immutable
// Engine. A Builder is not safe for concurrent use; the Engine is.
type Builder struct {
	tools     []Tool
	cfg       Config
	observers []Observer
	approver  Approver
	policy    ApprovalPolicy
	runner    ScriptRunner
}

// NewBuilder returns a builder with the contract's default configuration.
func NewBuilder() *Builder {
	return &Builder{cfg: DefaultConfig(), policy: GateWrites}
}

// Add adds tools. Names must be unique; Build reports duplicates.
func (b *Builder) Add(tools ...Tool) *Builder {
	b.tools = append(b.tools, tools...)
	return b
}

// WithConfig sets the configuration. Zero fields take the defaults.
func (b *Builder) WithConfig(c Config) *Builder {
	b.cfg = c
	return b
}

// WithObserver adds an observer of events; several may be added.
func (b *Builder) WithObserver(o Observer) *Builder {
	b.observers = append(b.observers, o)
	return b
}

// WithApprover gates calls behind an Approver. Without one, every call runs:
// approvals are something a host opts into.
func (b *Builder) WithApprover(a Approver) *Builder {
	b.approver = a
	return b
}

// WithApprovalPolicy chooses which calls go to the Approver (default
// GateWrites: all but read-only tools).
func (b *Builder) WithApprovalPolicy(p ApprovalPolicy) *Builder {
	b.policy = p
	return b
}

// WithScriptRunner chooses what runs code-mode scripts (default:
// InProcessRunner). The runner is shared by every run of the engine and must
// be safe for concurrent use; its owner closes it after the engine's last run.
func (b *Builder) WithScriptRunner(r ScriptRunner) *Builder {
	b.runner = r
	return b
}

// Reserved names are the meta-tools an engine exposes itself; no tool may use them.
var reserved = map[string]bool{MetaBatch: true, MetaExecuteCode: true}

// Names of the meta-tools.
const (
	MetaBatch       = "batch"
	MetaExecuteCode = "execute_code"
)

// Build validates every tool (name, schema, handler) and the configuration,
// compiles the input schemas, and returns the Engine. It reports all problems
// at once.
func (b *Builder) Build() (*Engine, error) {
	e := &Engine{
		tools:    make(map[string]*registered, len(b.tools)),
		cfg:      b.cfg.withDefaults(),
		approver: b.approver,
		policy:   b.policy,
		runner:   b.runner,
	}
	if e.runner == nil {
		e.runner = InProcessRunner()
	}
	if e.policy == nil {
		e.policy = GateWrites
	}
	if len(b.observers) > 0 {
		e.obs = Observers(b.observers...)
	}
	var errs []error
	for i := range b.tools {
		t := b.tools[i]
		if err := t.check(); err != nil {
			errs = append(errs, err)
			continue
		}
		if reserved[t.Name] {
			errs = append(errs, fmt.Errorf("tool name %q is reserved for the engine's meta-tool", t.Name))
			continue
		}
		if _, dup := e.tools[t.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %q added twice", t.Name))
			continue
		}
		s, err := schema.Compile(t.InputSchema)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: input schema: %v", t.Name, err))
			continue
		}
		e.tools[t.Name] = &registered{Tool: t, schema: s}
		e.names = append(e.names, t.Name)
	}
	errs = append(errs, e.cfg.check(e.tools)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Strings(e.names)
	meta, err := e.metaTools()
	if err != nil {
		return nil, err
	}
	e.meta = meta
	for name, r := range e.tools {
		o := e.cfg.Tools[name]
		r.timeout = e.cfg.Limits.CallTimeout.D()
		if o.Timeout > 0 {
			r.timeout = o.Timeout.D()
		}
		r.timeoutErr = Errorf(CodeTimeout, "%q did not finish within its timeout of %v", name, r.timeout)
		r.maxResultChars = e.cfg.Limits.MaxResultChars
		if o.MaxResultChars > 0 {
			r.maxResultChars = o.MaxResultChars
		}
	}
	return e, nil
}
