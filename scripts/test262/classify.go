package main

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// A cause is one reason a test that passes bare fails in codemode, with the
// rule that recognises it from the test's path and features and the
// runner's error code and message. Rules are tried in order; the first that
// matches names the cause; "other" takes the rest.
type cause struct {
	ID    string
	Title string
	match func(t classified) bool
}

// classified is what the rules see of one regression.
type classified struct {
	Path     string // relative to test/, slash-separated
	Features []string
	Includes []string // harness files the test includes
	Code     string
	Message  string
	Status   string
	// Hints read from the test's source (sourceHints).
	LengthAccessor bool // makes an array-like whose length is an accessor or an object
	UsesRemoved    bool // uses something the sandbox removes (eval, Function(...), Proxy, ...)
	UsesBind       bool // calls bind
}

var (
	// reLengthAccessor finds a length defined as an accessor or given as
	// an object: what the hardened array guards refuse before any of the
	// method's observable steps.
	reLengthAccessor = regexp.MustCompile(`["']length["']\s*,\s*\{[^}]*\b(get|set)\b|\b(get|set)\s+length\s*\(|["']?\blength["']?\s*:\s*\{`)
	// reUsesRemoved finds a use of what the sandbox removes: eval, code
	// from strings through a function constructor (and the stand-in
	// Function's own properties), Proxy, BigInt, the binary buffers.
	reUsesRemoved = regexp.MustCompile(`\beval\b|(^|[^.\w$])Function\s*(\(|\.(call|apply)\(|\.length\b|,\s*["'](prototype|length))|\bFunction\.prototype\s*,\s*["']constructor|\bconstructor\.length\b|\bProxy\b|\bBigInt|\b\d+n\b|\bArrayBuffer\b|\bDataView\b|\bAtomics\b|\b(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array\b`)
	reUsesBind    = regexp.MustCompile(`\.bind\(`)
)

// sourceHints fills the hints of c from the test's source: its code, after
// the front matter (whose prose mentions eval and Function freely).
func sourceHints(c classified, src string) classified {
	if _, code, ok := strings.Cut(src, "---*/"); ok {
		src = code
	}
	c.LengthAccessor = reLengthAccessor.MatchString(src)
	c.UsesRemoved = reUsesRemoved.MatchString(src)
	c.UsesBind = reUsesBind.MatchString(src)
	return c
}

func (c classified) base() string { return path.Base(c.Path) }

func (c classified) has(re *regexp.Regexp) bool { return re.MatchString(c.Message) }

func (c classified) inDir(dirs ...string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(c.Path, d+"/") {
			return true
		}
	}
	return false
}

var (
	reRemovedGlobal = regexp.MustCompile(`\b(eval|Proxy|BigInt|ArrayBuffer|SharedArrayBuffer|DataView|Atomics|(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array)\b.*\bnot defined|code generation from strings|BigInt`)
	reArrayLike     = regexp.MustCompile(`array-like whose length is`)
	reInternal      = regexp.MustCompile(`(?i)internal error|JavaScript engine failed`)
	reLengthProp    = regexp.MustCompile(`(?i)length descriptor value should be|length.*(SameValue\(«0», «[1-9]|Actual: .*\b0$)`)
	reConstructor   = regexp.MustCompile(`(?i)isConstructor|not a constructor|should not be a constructor|prototype === undefined|hasOwnProperty\("prototype"\)|\[\[Construct\]\]`)
	reGoName        = regexp.MustCompile(`github\.com/|\.func\d+\(`)
	reAlias         = regexp.MustCompile(`«function (\[Symbol\.\w+\]|\w+)\(\) \{ \[native code\] \}», «function \w+\(\) \{ \[native code\] \}»`)
	reSymbol        = regexp.MustCompile(`(?i)symbol`)
	reDescriptor    = regexp.MustCompile(`should (not )?be (writable|enumerable|configurable)`)
	reReadCount     = regexp.MustCompile(`(?i)count|calls|called|times|order|log`)
)

// removedFeatures are test262 feature tags of what the sandbox removes on
// purpose (docs/code-mode.md, "Removed from the language").
var removedFeatures = []string{
	"Proxy", "BigInt", "TypedArray", "ArrayBuffer", "DataView", "SharedArrayBuffer", "Atomics",
	"resizable-arraybuffer", "arraybuffer-transfer", "Float16Array", "uint8array-base64",
}

const (
	titleRemoved   = "removals on purpose (eval, code from strings through the Function constructors and the stand-in Function, Proxy, BigInt, typed arrays and buffers)"
	titleBind      = "bind rewritten: bound functions differ (constructors, new.target, length, toString)"
	titleArrayLike = "array-likes whose length is a getter, setter or object are refused"
)

// causes are the ones the comparison reports, in the order their rules are
// tried (the most specific first); a cause may have more than one rule,
// when others must be tried between them.
var causes = []cause{
	{"internal", "a goja panic surfaces as an internal error", func(c classified) bool {
		return c.has(reInternal) || c.Code == "internal"
	}},
	{"removed", titleRemoved, func(c classified) bool {
		return c.has(reRemovedGlobal)
	}},
	{"arraylike-length", titleArrayLike, func(c classified) bool {
		return c.has(reArrayLike)
	}},
	{"memory-limit", "legitimate huge lengths end the run with memory_limit", func(c classified) bool {
		return c.Code == "memory_limit"
	}},
	// A test that uses what is removed cannot pass, whatever else it
	// meets; and the stand-in Function differs from Function (its length,
	// the attributes of Function.prototype and of its constructor).
	{"removed", titleRemoved, func(c classified) bool {
		return c.UsesRemoved || slices.ContainsFunc(c.Features, func(f string) bool { return slices.Contains(removedFeatures, f) })
	}},
	{"arraylike-length", titleArrayLike, func(c classified) bool {
		return c.LengthAccessor && c.Code == "runtime_error" &&
			c.inDir("built-ins/Array", "built-ins/Reflect", "built-ins/Function/prototype/apply")
	}},
	{"wrapper-length", "wrapped builtins report another .length", func(c classified) bool {
		return c.base() == "length.js" || c.has(reLengthProp)
	}},
	{"alias", "aliases split (f === g no longer holds)", func(c classified) bool {
		return c.has(reAlias)
	}},
	{"accessor-identity", "accessors a script defines are replaced (identity, redefinition, String(getter))", func(c classified) bool {
		return c.has(reGoName) || c.inDir("built-ins/Object/defineProperty", "built-ins/Object/defineProperties", "built-ins/Object/create",
			"built-ins/Object/prototype/__defineGetter__", "built-ins/Object/prototype/__defineSetter__",
			"built-ins/Reflect/defineProperty")
	}},
	{"name", "wrapped builtins report another .name", func(c classified) bool {
		return c.base() == "name.js" || strings.Contains(c.Message, "name descriptor value should be")
	}},
	// The bind written in JavaScript makes constructors of every bound
	// function, and one called inside a constructor is constructed
	// (propertyHelper.js binds its helpers: verifyProperty inside
	// `new function () {…}` fails with "Value is not a constructor").
	{"bind", titleBind, func(c classified) bool {
		return c.inDir("built-ins/Function/prototype/bind") || strings.Contains(c.base(), "bound") ||
			strings.Contains(c.Message, "is not a constructor") && (c.UsesBind || slices.Contains(c.Includes, "propertyHelper.js"))
	}},
	{"constructor", "wrappers are constructors or have .prototype", func(c classified) bool {
		return strings.Contains(c.base(), "not-a-constructor") || c.has(reConstructor)
	}},
	{"bind", titleBind, func(c classified) bool {
		return c.UsesBind && c.Code == "runtime_error"
	}},
	{"symbol-coercion", "methods coerce a Symbol instead of throwing", func(c classified) bool {
		return reSymbol.MatchString(c.base()) && strings.Contains(c.Message, "TypeError")
	}},
	{"descriptor", "property attributes changed", func(c classified) bool {
		return c.base() == "prop-desc.js" || c.has(reDescriptor)
	}},
	{"extra-reads", "a guard reads or calls something an extra time (observable order or count)", func(c classified) bool {
		return c.has(reReadCount)
	}},
	{"other", "other", func(classified) bool { return true }},
}

// classify names the cause of a regression.
func classify(c classified) string {
	for _, k := range causes {
		if k.match(c) {
			return k.ID
		}
	}
	return "other"
}

// causeOrder lists the causes once each, in the order of their first rule.
func causeOrder() []cause {
	var out []cause
	seen := map[string]bool{}
	for _, k := range causes {
		if !seen[k.ID] {
			seen[k.ID] = true
			out = append(out, k)
		}
	}
	return out
}
