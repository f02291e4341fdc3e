package js

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// unwrappedNatives are the native functions of a hardened runtime that run
// without a wrapper because they are on the unwrapped list: found by
// walking the runtime, so a builtin added to the list later is attacked too.
func unwrappedNatives(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, f := range reachableFunctions(t, hardenedRunner(t)) {
		if f.kind == "native" && unwrappedWhy(f.path) != "" {
			paths = append(paths, f.path)
		}
	}
	return paths
}

// builtinExpr is a JavaScript expression for the builtin at path
// ("get Map.prototype.size", "Map.prototype[Symbol.iterator]", "isNaN").
func builtinExpr(path string) string {
	p, half := path, ""
	for _, h := range []string{"get", "set"} {
		if rest, ok := strings.CutPrefix(path, h+" "); ok {
			p, half = rest, h
		}
	}
	var owner, key string
	if strings.HasSuffix(p, "]") {
		i := strings.LastIndexByte(p, '[')
		owner, key = p[:i], p[i+1:len(p)-1]
	} else if i := strings.LastIndexByte(p, '.'); i >= 0 {
		owner, key = p[:i], strconv.Quote(p[i+1:])
	} else {
		owner, key = "globalThis", strconv.Quote(p)
	}
	if half != "" {
		return "Object.getOwnPropertyDescriptor(" + owner + ", " + key + ")." + half
	}
	return owner + "[" + key + "]"
}

// unwrappedAttacks put B, an unwrapped builtin, where a builtin that needs
// its wrapper would recurse in Go until the process dies, run on past the
// timeout, or build past the size limit: as its own toString, valueOf,
// Symbol.toPrimitive, getter (also of Symbol.toStringTag, which the
// TypeErrors of many builtins read), on nested objects, as the callback of
// wrapped builtins, and called on wrong receivers with hostile arguments.
var unwrappedAttacks = map[string]string{
	"toString":        `const o = {toString: B}; return String(o)`,
	"valueOf":         `const o = {valueOf: B, toString: B}; return +o`,
	"toPrimitive":     "const o = {[Symbol.toPrimitive]: B}; return `${o}`",
	"nested":          `let a = {toString: B, valueOf: B}; for (let i = 0; i < 2000; i++) a = {toString: B, valueOf: B, x: a}; return [String(a), a + ""]`,
	"nested arrays":   `let a = {toString: B}; for (let i = 0; i < 2000; i++) a = [a, {toString: B, x: a}]; return String(a)`,
	"self array-like": `const o = {length: 2, toString: B, valueOf: B, join: B}; o[0] = o; o[1] = o; return [String(o), +o]`,
	// A spy logs every call out of B: getters (length, indices, constructor,
	// then, Symbol.toStringTag...) and the ToPrimitive hooks. B may call out
	// only as Math does: a ToPrimitive hook of an argument, with no
	// arguments (or a hint string), never anything of this.
	"spy": `const bad = [];
const spy = (role, withToPrimitive) => {
	const o = {};
	const log = (name, getter) => function (...args) {
		if (getter || role === "this" || args.length > 1 || args.length === 1 && typeof args[0] !== "string") bad.push(role + " " + name + "(" + args.length + ")");
		return name === "valueOf" ? 1 : name === "toString" || name === "toPrimitive" ? "1" : undefined;
	};
	for (const k of ["length", "0", "1", "x", "constructor", "then", "lastIndex", "source", "flags", "message", "name", "prototype", "size", "has", "keys", "next", "done", "value"])
		Object.defineProperty(o, k, {get: log("get " + k, true), enumerable: true});
	for (const s of [Symbol.toStringTag, Symbol.iterator, Symbol.species, Symbol.isConcatSpreadable, Symbol.match, Symbol.replace, Symbol.split, Symbol.search, Symbol.hasInstance, Symbol.unscopables])
		Object.defineProperty(o, s, {get: log("get " + s.description, true), enumerable: true});
	o.toString = log("toString"); o.valueOf = log("valueOf");
	if (withToPrimitive) o[Symbol.toPrimitive] = log("toPrimitive");
	return o;
};
for (const t of [spy("this", false), spy("this", true), 5, "s", true, Symbol("d"), new Map(), new Set(), new Date(0), [1], undefined]) {
	for (const args of [[], [spy("arg", false)], [spy("arg", true), spy("arg", false), spy("arg", true)], [1, spy("arg", false)], ["s", spy("arg", true)]]) {
		try { B.apply(t, args) } catch (e) {}
	}
}
if (bad.length > 0) throw new Error("spied calls out of B: " + bad.join(", "));`,
	// maxElems is the sandbox's size limit (declared before each attack).
	"size": `const s = "x%%".repeat(1 << 18), big = {length: 5e6, 0: s};
const size = (v) => typeof v === "string" || Array.isArray(v) ? v.length : 0;
for (const [t, args] of [[big, [s]], [big, []], [s, [s]], [s, [5e6]], [[s, s, s, s, s], [s]], [5, [s, 1e9]], [undefined, [s, s]], [s, [1e9, s]]]) {
	let v;
	try { v = B.apply(t, args) } catch (e) { continue }
	if (size(v) > maxElems) throw new Error("made something over the limit: " + size(v));
}`,
	// (c): goja's loops over an iterator's next or a RegExp's exec stop
	// only on what it returns.
	"object": `const o = {x: 1}, e = {}; Object.defineProperty(e, "x", {get() { return 1 }});
for (const t of [o, e, {length: 1, 0: "x"}, "s", 5, undefined, null, [1], new Map(), new Set(), Object.create(null), Symbol("d")]) {
	for (const args of [[], ["s"], [o], [o, "x"], [e, "x"], [o, null], [Symbol.for("k")], [t]]) {
		let v;
		try { v = B.apply(t, args) } catch (e) { continue }
		if (v !== null && (typeof v === "object" || typeof v === "function")) throw new Error("returned an object")
	}
}
const it = {next: B}; it[Symbol.iterator] = () => it;
try { [...it] } catch (e) {}
try { RegExp.prototype[Symbol.match].call({flags: "g", exec: B, lastIndex: 0}, "x") } catch (e) {}`,
	"getter":      `const o = {}; Object.defineProperty(o, "x", {get: B, set: B}); o.x = o; return [o.x, B.call(o, o)]`,
	"toStringTag": `const o = {}; Object.defineProperty(o, Symbol.toStringTag, {get: B}); return [Object.prototype.toString.call(o), B.call(o, o, o), String(o)]`,
	"callback": `const o = {toString: B, valueOf: B}; Object.defineProperty(o, Symbol.toStringTag, {get: B});
return [[o, 1, "s", undefined].map(B), [o, o].map(B, o), [3, 1, 2].sort(B), new Map([[o, o]]).forEach(B, o)]`,
	"wrong this": `const o = {toString: B, valueOf: B}; Object.defineProperty(o, Symbol.toStringTag, {get: B});
const p = Object.preventExtensions({toString: B, valueOf: B});
const out = [];
for (const t of [undefined, null, 1, "s", true, Symbol("d"), {}, [], o, p, B, new Map(), new Set(), new Date(0), Object(Symbol())]) {
	for (const args of [[], [o, o, o], [p, o], [o, p], [t, t]]) {
		try { out.push(typeof B.apply(t, args)) } catch (e) {
			if (!(e instanceof TypeError || e instanceof RangeError || e instanceof URIError)) throw e;
			out.push(e.name);
		}
	}
}
return out`,
}

// TestHostileUnwrappedBuiltins runs every attack of unwrappedAttacks on
// every unwrapped builtin: each run must end as a wrapped builtin's would —
// a value, a script error, limit_exceeded or memory_limit — and the process
// must survive (a builtin that needed its wrapper kills it with a Go stack
// overflow, or runs past the timeout).
func TestHostileUnwrappedBuiltins(t *testing.T) {
	paths := unwrappedNatives(t)
	if len(paths) < 50 {
		t.Fatalf("only %d unwrapped builtins found", len(paths))
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			for name, attack := range unwrappedAttacks {
				code := "const maxElems = " + strconv.FormatInt(maxElemsFor(DefaultMaxMemoryBytes), 10) + ", B = " + builtinExpr(path) + ";\nif (typeof B !== \"function\") throw new Error(\"not found\");\n" + attack
				res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 20 * time.Second}})
				if res.Err == nil {
					continue
				}
				switch res.Err.Code {
				case CodeLimitExceeded, CodeMemoryLimit:
				case CodeRuntimeError:
					if strings.Contains(res.Err.Message, "not found") || strings.Contains(res.Err.Message, "over the limit") || strings.Contains(res.Err.Message, "spied") || strings.Contains(res.Err.Message, "returned an object") || strings.Contains(res.Err.Message, "internal") {
						t.Errorf("%s: %s", name, res.Err.Message)
					}
				default:
					t.Errorf("%s: %s: %s", name, res.Err.Code, res.Err.Message)
				}
			}
		})
	}
}
