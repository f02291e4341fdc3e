package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/engine/internal/schema"
	"github.com/codemode-dev/codemode/internal/strictjson"
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

// NewBuilder returns a builder with the default configuration (DefaultConfig).
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
var reserved = map[string]bool{MetaBatch: true, MetaExecuteCode: true, MetaSearchTools: true}

// Names of the meta-tools.
const (
	MetaBatch       = "batch"
	MetaExecuteCode = "execute_code"
	MetaSearchTools = "search_tools"
)

// Build validates every tool (name, schema, handler) and the configuration,
// compiles the input schemas, and returns the Engine. It reports all problems
// at once, as one bad_request *Error whose message lists them separated by
// "; " and which unwraps (errors.Unwrap) to an errors.Join of one *Error per
// problem. A problem about a tool names its Origin when it has one.
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
	var msgs []string
	bad := func(format string, args ...any) {
		err := Errorf(CodeBadRequest, format, args...)
		errs, msgs = append(errs, err), append(msgs, err.Message)
	}
	// Every tool's problems are found first, the schemas compiled after
	// (all at once: compileSchemas), and reported in the tools' order.
	problem := make([]*Error, len(b.tools))
	var ok []*registered
	var at []int // ok[j] is b.tools[at[j]]
	seen := make(map[string]*registered, len(b.tools))
	for i := range b.tools {
		t := b.tools[i]
		checkErr := t.check()
		switch first, dup := seen[t.Name]; {
		case checkErr != nil:
			problem[i] = Errorf(CodeBadRequest, "%v%s", checkErr, originNote(t.Origin, "from "))
		case reserved[t.Name]:
			problem[i] = Errorf(CodeBadRequest, "tool name %q%s is reserved for the engine's meta-tool", t.Name, originFrom(t.Origin))
		case dup:
			problem[i] = Errorf(CodeBadRequest, "tool %q%s is already defined%s", t.Name, originFrom(t.Origin), originNote(first.Origin, ""))
		default:
			r := &registered{Tool: t}
			seen[t.Name] = r
			ok, at = append(ok, r), append(at, i)
		}
	}
	for j, err := range compileSchemas(ok) {
		if r := ok[j]; err != nil {
			problem[at[j]] = Errorf(CodeBadRequest, "tool %q%s: input schema: %v", r.Name, originFrom(r.Origin), err)
		} else {
			e.tools[r.Name] = r
			e.names = append(e.names, r.Name)
		}
	}
	for _, err := range problem {
		if err != nil {
			errs, msgs = append(errs, err), append(msgs, err.Message)
		}
	}
	var p strictjson.Problems
	e.cfg.problems(&p)
	e.cfg.toolProblems(&p, e.tools, e.names)
	for _, q := range p.List() {
		bad("config: %v", q)
	}
	if more := p.Len() - len(p.List()); more > 0 {
		bad("config: and %d more problems", more)
	}
	if len(errs) > 0 {
		return nil, (&Error{Code: CodeBadRequest, Message: strings.Join(msgs, "; "), cause: errors.Join(errs...)}).bounded()
	}
	sort.Strings(e.names)
	for _, r := range e.tools {
		e.setLimits(r)
	}
	search, err := e.newSearchTool()
	if err != nil {
		return nil, WrapError(CodeBadRequest, err)
	}
	e.search = search
	e.scriptTools = e.names
	if search != nil {
		e.setLimits(search)
		e.scriptTools = append(slices.Clone(e.names), MetaSearchTools)
	}
	if err := e.planMetaTools(); err != nil {
		return nil, WrapError(CodeBadRequest, err)
	}
	return e, nil
}

// maxSchemaObjects bounds the JSON objects of all the tools' distinct
// input schemas together. Each is bounded (schema.MaxObjects), but a
// catalog of thousands at that bound would take many minutes to compile;
// at this one Build takes seconds (BenchmarkBuildSchemaBounds). GitHub's
// REST API's 712 distinct input schemas hold 7,344.
const maxSchemaObjects = 200_000

// compileSchemas compiles the tools' input schemas, each distinct one once
// (712 for the 1,223 operations of GitHub's REST API, whose list
// operations share theirs), on every CPU: one CPU takes 220 ms for them
// all. It returns each tool's error, in order.
func compileSchemas(tools []*registered) []error {
	type compiled struct {
		doc schema.Doc
		s   *schema.Schema
		err error
	}
	byDoc := map[string]*compiled{}
	var distinct []string
	for _, t := range tools {
		if _, ok := byDoc[string(t.InputSchema)]; !ok {
			byDoc[string(t.InputSchema)] = &compiled{}
			distinct = append(distinct, string(t.InputSchema))
		}
	}
	onEveryCPU(distinct, func(doc string) {
		c := byDoc[doc]
		c.doc, c.err = schema.Parse(json.RawMessage(doc))
	})
	// In the tools' order, so that the same tools are refused every time.
	total := 0
	for _, doc := range distinct {
		if c := byDoc[doc]; c.err == nil {
			if total += c.doc.Objects; total > maxSchemaObjects {
				c.err = fmt.Errorf("the tools' input schemas before it hold %d JSON objects and this one %d, more than the %d all of an engine's may hold together (compiling takes time that grows with their size)",
					total-c.doc.Objects, c.doc.Objects, maxSchemaObjects)
				total -= c.doc.Objects
			}
		}
	}
	onEveryCPU(distinct, func(doc string) {
		if c := byDoc[doc]; c.err == nil {
			c.s, c.err = c.doc.Compile()
			c.doc = schema.Doc{} // its tree is the compiled schema's now, or garbage
		}
	})
	errs := make([]error, len(tools))
	for i, t := range tools {
		c := byDoc[string(t.InputSchema)]
		t.schema, errs[i] = c.s, c.err
	}
	return errs
}

// onEveryCPU calls f with each of items, on as many goroutines as CPUs.
func onEveryCPU[T any](items []T, f func(T)) {
	work := make(chan T)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(items)) {
		wg.Go(func() {
			for it := range work {
				f(it)
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
}

// setLimits gives r its timeout and result cap: the configured limits, or
// the tool's own overrides.
func (e *Engine) setLimits(r *registered) {
	o := e.cfg.Tools[r.Name]
	r.timeout = e.cfg.Limits.CallTimeout.D()
	if o.Timeout > 0 {
		r.timeout = o.Timeout.D()
	}
	r.timeoutErr = Errorf(CodeTimeout, "%q did not finish within its timeout of %v", r.Name, r.timeout)
	r.maxResultChars = e.cfg.Limits.MaxResultChars
	if o.MaxResultChars > 0 {
		r.maxResultChars = o.MaxResultChars
	}
}

// originFrom is " from ORIGIN" for a tool's origin, or "".
func originFrom(origin string) string {
	if origin == "" {
		return ""
	}
	return " from " + origin
}

// originNote is " (PREFIX ORIGIN)" for a tool's origin, or "".
func originNote(origin, prefix string) string {
	if origin == "" {
		return ""
	}
	return " (" + prefix + origin + ")"
}
