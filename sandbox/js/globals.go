package js

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// build makes the run's runtime for its profile, before bind.
func (r *runner) build() error {
	if r.opt.Profile == Lean {
		return r.lean()
	}
	return r.harden()
}

// lean is the Lean profile: the removals (remove) and goja's builtins as
// they are. The sandbox's own stringifying (tool arguments, logs, the
// result) is the same JSON.stringify with the same replacer as in Hardened
// (stringifyJSON), unwrapped.
func (r *runner) lean() error {
	g, err := r.remove()
	if err != nil {
		return err
	}
	jsonObj := r.keepBuiltins(g)
	r.nativeStringify, _ = goja.AssertFunction(jsonObj.Get("stringify"))
	return nil
}

// keepBuiltins keeps the builtins the sandbox itself uses, as they are
// before the guards and before the script can replace them, and returns
// the JSON object.
func (r *runner) keepBuiltins(g *goja.Object) *goja.Object {
	jsonObj := g.Get("JSON").(*goja.Object)
	r.jsonParse, _ = goja.AssertFunction(jsonObj.Get("parse"))
	r.gopd, _ = goja.AssertFunction(g.Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	r.errorCtor = g.Get("Error").(*goja.Object)
	r.rangeErrorCtor = g.Get("RangeError").(*goja.Object)
	r.syntaxErrorCtor = g.Get("SyntaxError").(*goja.Object)
	return jsonObj
}

// harden is the Hardened profile: the removals (remove), then the builtins
// made safe (prelude.js and the native guards). It is most of the cost of a
// run's setup: goja makes its builtins lazily, and the guards touch dozens
// of them (BenchmarkSetup).
func (r *runner) harden() error {
	vm := r.vm
	g, err := r.remove()
	if err != nil {
		return err
	}
	jsonObj := r.keepBuiltins(g)
	r.arrayCtor, _ = g.Get("Array").(*goja.Object)

	maxElems := r.maxElems
	r.guardBuiltins()
	if err := r.guardIterators(); err != nil {
		return err
	}
	r.nativeStringify, _ = goja.AssertFunction(jsonObj.Get("stringify")) // guarded; the prelude replaces it
	fn, err := vm.RunProgram(prelude())
	if err != nil {
		return err
	}
	harden, _ := goja.AssertFunction(fn)
	// The sandbox stringifies (arguments, results, logs) as the prelude's
	// JSON.stringify does, with its replacer in Go (stringifyJSON); parsing
	// keeps the original, for JSON the host made.
	_, err = harden(goja.Undefined(), g, vm.ToValue(r.abortFromScript), vm.ToValue(r.jsonDepthHook),
		vm.ToValue(maxElems), vm.ToValue(maxElems), vm.ToValue(maxJSONDepth))
	if err != nil {
		return err
	}
	r.forwardPrelude()
	return nil
}

// bind defines the run's own globals: tools, input and console.
func (r *runner) bind() error {
	vm := r.vm
	tools, err := r.toolsObject()
	if err != nil {
		return err
	}
	input := goja.Null()
	if len(r.opt.Input) > 0 {
		if input, err = r.parseJSON(r.opt.Input); err != nil {
			return err
		}
	}
	g := vm.GlobalObject()
	for name, v := range map[string]goja.Value{"tools": tools, "input": input, "console": r.consoleObject()} {
		if err := g.DefineDataProperty(name, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// bytesPerElement is what one array element or string character is allowed
// to cost when sizing the builtin guards from the memory budget: arrays made
// from strings cost about that much per character. 256 MiB allows arrays and
// strings of 4 Mi elements.
const bytesPerElement = 64

// maxElemsFor sizes the builtin guards for a memory budget.
func maxElemsFor(maxMemoryBytes int64) int64 { return maxMemoryBytes / bytesPerElement }

// maxJSONDepth is the nesting encoding/json accepts; JSON.parse in the
// sandbox refuses deeper text before its native recursion starts.
const maxJSONDepth = 10000

// maxJSONNesting bounds JSON.parse and JSON.stringify called while another
// runs (from a getter, a toJSON or a reviver). Each counts maxJSONDepth from
// its own root, while the native recursion of the ones outside it is still on
// the Go stack: unbounded, a value nested 9,990 deep whose innermost getter
// stringifies the root again overflows the stack, which kills the process.
const maxJSONNesting = 4

// jsonDepthOK reports whether s nests arrays and objects at most
// maxJSONDepth deep (brackets inside strings do not count).
func jsonDepthOK(s string) bool {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > maxJSONDepth {
				return false
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return true
}

// jsonDepthHook is jsonDepthOK for the prelude.
func (r *runner) jsonDepthHook(c goja.FunctionCall) goja.Value {
	return r.vm.ToValue(jsonDepthOK(c.Argument(0).String()))
}

// maxArguments caps the arguments spread by apply and Reflect, as engines do
// (guardApply, arraylike.go).
const maxArguments = 1 << 16

// toolsObject builds the frozen `tools` object: every tool under its full
// name, and dotted names also as nested namespaces (tools.board.get). A tool
// wins over a namespace of the same name.
func (r *runner) toolsObject() (*goja.Object, error) {
	vm := r.vm
	freezeFn, _ := goja.AssertFunction(vm.GlobalObject().Get("Object").(*goja.Object).Get("freeze"))
	ro := func(o *goja.Object, name string, v goja.Value) {
		_ = o.DefineDataProperty(name, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	root := vm.NewObject()
	funcs := make(map[string]goja.Value, len(r.opt.Tools))
	for _, name := range r.opt.Tools {
		f := vm.ToValue(r.toolFunc(name))
		funcs[name] = f
		ro(root, name, f)
	}
	spaces := map[string]*goja.Object{"": root}
	var space func(path string) *goja.Object // nil where a tool has the name
	// Namespaces are defined configurable: their proxies replace them below.
	space = func(path string) *goja.Object {
		if o, ok := spaces[path]; ok {
			return o
		}
		parent, name := "", path
		if i := strings.LastIndexByte(path, '.'); i >= 0 {
			parent, name = path[:i], path[i+1:]
		}
		var o *goja.Object
		if _, isTool := funcs[path]; !isTool {
			if p := space(parent); p != nil {
				o = vm.NewObject()
				_ = p.DefineDataProperty(name, o, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			}
		}
		spaces[path] = o
		return o
	}
	for _, name := range r.opt.Tools {
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			if o := space(name[:i]); o != nil {
				ro(o, name[i+1:], funcs[name])
			}
		}
	}
	// Each namespace is seen through a proxy (see namespace), which replaces
	// it in its parent; then the objects are frozen.
	proxies := make(map[string]goja.Value, len(spaces))
	for path, o := range spaces {
		if o != nil {
			proxies[path] = r.namespace(o, path)
		}
	}
	for path, o := range spaces {
		if o == nil || path == "" {
			continue
		}
		parent, name := "", path
		if i := strings.LastIndexByte(path, '.'); i >= 0 {
			parent, name = path[:i], path[i+1:]
		}
		_ = spaces[parent].DefineDataProperty(name, proxies[path], goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	for _, o := range spaces {
		if o != nil {
			if _, err := freezeFn(goja.Undefined(), o); err != nil {
				return nil, err
			}
		}
	}
	return proxies[""].(*goja.Object), nil
}

// namespace wraps a namespace object so that a name it lacks is still a
// tool function: calling it sends the call to the host, which fails it as
// an unknown tool with suggestions — a catchable error the script can learn
// from, rather than "undefined is not a function". Deeper names work too
// (tools.bord.get is the call "bord.get").
func (r *runner) namespace(target *goja.Object, path string) goja.Value {
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	return r.vm.ToValue(r.vm.NewProxy(target, &goja.ProxyTrapConfig{
		Get: func(t *goja.Object, name string, _ goja.Value) goja.Value {
			if v := t.Get(name); v != nil {
				return v
			}
			if name == "then" || name == "toJSON" { // probes by await and JSON.stringify, not calls
				return goja.Undefined()
			}
			f := r.vm.ToValue(r.toolFunc(prefix + name)).(*goja.Object)
			return r.namespace(f, prefix+name)
		},
	}))
}

// toolFunc is the async function the script calls for one tool. It records
// the call for the host (handed over at the end of the turn, so calls made
// together are started together) and returns the call's promise.
func (r *runner) toolFunc(name string) func(goja.FunctionCall) goja.Value {
	return func(fc goja.FunctionCall) goja.Value {
		vm := r.vm
		if r.main != nil && r.main.State() != goja.PromiseStatePending {
			r.late++ // the script already returned: the call is not run
			p, _, _ := vm.NewPromise()
			return vm.ToValue(p)
		}
		// Calls whose arguments are being serialised count too: getters in
		// the arguments may make calls of their own.
		if r.calls+r.serialising >= r.lim.MaxToolCalls {
			r.abort(&Error{Code: CodeLimitExceeded, Message: "the script made more tool calls than its limit of " + strconv.Itoa(r.lim.MaxToolCalls)})
		}
		args := "{}"
		if a := fc.Argument(0); !goja.IsUndefined(a) {
			r.serialising++
			s, err := r.stringifyJSON(a)
			r.serialising--
			if err != nil {
				panic(err) // a JavaScript exception (a cycle, a BigInt): thrown at the call
			}
			if s == nil || goja.IsUndefined(s) {
				args = "null"
			} else {
				args = s.String()
			}
		}
		c := &Call{Index: r.calls, Tool: name, Args: []byte(args), run: r}
		c.Line, c.Column = r.callSite()
		p, resolve, reject := vm.NewPromise()
		c.resolve, c.reject = resolve, reject
		r.calls++
		r.turn = append(r.turn, c)
		return vm.ToValue(p)
	}
}

// abort ends the run from the loop itself, with JavaScript running: the
// interrupt stops the script at its next step, and the exception stops the
// builtin or wrapper that asked.
func (r *runner) abort(err *Error) {
	r.kill(err)
	panic(r.vm.NewGoError(err))
}

// abortFromScript is the prelude's way to end the run with a budget error:
// abort(code, message).
func (r *runner) abortFromScript(c goja.FunctionCall) goja.Value {
	r.abort(&Error{Code: Code(c.Argument(0).String()), Message: c.Argument(1).String()})
	return nil
}
