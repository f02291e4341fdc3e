// The sandbox's hardening, run in every fresh runtime before the script.
// It is called once with the global object and the host's hooks; nothing it
// captures is reachable from the script afterwards.
//
// Why: goja's interrupt does not reach inside builtins, so a builtin asked to
// walk 2^32 elements or build a gigabyte string runs on for minutes, and a
// single huge allocation can take the process down. The guards check sizes
// before such builtins run and end the run with memory_limit instead.
(function (g, abort, jsonDepthOK, maxElems, maxChars, maxJSONDepth) {
  "use strict";
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const getProto = Object.getPrototypeOf;
  const isArray = Array.isArray;
  const floor = Math.floor;
  const toNumber = Number;
  const toStr = String;

  const AP = Array.prototype;
  const toLength = (v) => {
    const n = toNumber(v);
    return n > 0 ? floor(n) : 0; // NaN and negatives are 0, as in ToLength
  };
  const tooMany = (n, what) =>
    abort("memory_limit", what + " of " + n + " elements is over the sandbox's limit of " + maxElems);
  const tooLong = (n, what) =>
    abort("memory_limit", what + " of " + n + " characters is over the sandbox's limit of " + maxChars);

  // wrap replaces obj[key] with make(original), keeping the property's flags.
  // The replacements are methods ({ join(sep) {} }.join): named and as long
  // as goja's, and like goja's builtins not constructors, without a
  // prototype property.
  const wrap = (obj, key, make) => {
    const d = describe(obj, key);
    if (!d || typeof d.value !== "function") return;
    d.value = make(d.value);
    define(obj, key, d);
  };

  // Every array method walks this.length, also on array-likes such as
  // {length: 2**32 - 1}: the host has wrapped them all before this runs (in
  // Go: cheaper than wrappers made here), handing array-likes to
  // arraylike.js, and the RegExp methods with a check of the regexp
  // engine's match timeout.
  // join's result can be far longer than its array: add it up first.
  // join and toLocaleString build one string from all the elements' strings,
  // natively: a million elements of a million characters each would be a
  // single allocation of terabytes. They are rebuilt here from a snapshot of
  // the elements' strings (each coerced once, so a getter cannot answer
  // short to the count and long to the builtin), on array-likes too.
  const snapshot = (o, n, sepLength, str) => {
    if (n > maxElems) tooMany(n, "an array");
    if (sepLength * n > maxChars) tooLong(sepLength * n, "a joined string");
    const parts = [];
    let total = 0;
    for (let i = 0; i < n; i++) {
      const v = o[i];
      const s = v === undefined || v === null ? "" : str(v);
      parts[i] = s;
      total += sepLength + s.length;
      if (total > maxChars) tooLong(total, "a joined string");
    }
    return parts;
  };
  const nativeJoin = AP.join; // the host's wrapper of goja's join
  wrap(AP, "join", (orig) => ({ join(sep) {
    if (this === null || typeof this !== "object") return apply(orig, this, arguments);
    const n = toLength(this.length);
    const s = sep === undefined ? "," : toStr(sep);
    return apply(orig, snapshot(this, n, s.length, toStr), [s]);
  } }).join);
  wrap(AP, "toLocaleString", (orig) => ({ toLocaleString() {
    if (this === null || typeof this !== "object") return apply(orig, this, arguments);
    return apply(nativeJoin, snapshot(this, toLength(this.length), 1, (v) => toStr(v.toLocaleString())), [","]);
  } }).toLocaleString);
  // Array.from and the other array methods on array-likes are in
  // arraylike.js (arraylike.go), which reads their length once.

  // String.prototype's repeat, padStart, padEnd and concat are guarded in
  // Go (guard.go), after their arguments are coerced once.

  // apply, Reflect.apply and Reflect.construct check the array-like they
  // spread into arguments in Go (guardApply and the Reflect guards, arraylike.go).

  // JSON.stringify recurses natively through nested values, deaf to
  // interrupts; with a replacer function it calls back into JavaScript at
  // every value, where interrupts land. The identity replacer changes
  // nothing else. The sandbox stringifies through the same function.
  // The replacer also keeps the path of holders from the root to the value
  // (stringify goes depth first, and calls it with this = the holder), so
  // that nesting deeper than JSON.parse accepts ends before the native
  // recursion grows Go's stack past its limit.
  const stringify = JSON.stringify;
  const safeStringify = ({ stringify(value, replacer, space) {
    if (isArray(replacer)) return apply(stringify, undefined, [value, replacer, space]);
    const user = typeof replacer === "function" ? replacer : undefined;
    const path = [];
    const tracking = function (k, v) {
      if (user !== undefined) v = apply(user, this, [k, v]);
      while (path.length > 0 && path[path.length - 1] !== this) path.length--;
      if (path.length === 0) path[0] = this;
      if (typeof v === "object" && v !== null) {
        path[path.length] = v;
        if (path.length > maxJSONDepth) throw new RangeError("JSON.stringify: value nested too deeply (the limit is " + maxJSONDepth + " levels)");
      }
      return v;
    };
    return apply(stringify, undefined, [value, tracking, space]);
  } }).stringify;
  define(JSON, "stringify", { value: safeStringify, writable: true, enumerable: false, configurable: true });
  // JSON.parse recurses natively too: refuse nesting deeper than Go's own
  // JSON decoder accepts before it starts.
  wrap(JSON, "parse", (orig) => ({ parse(text, reviver) {
    if (!jsonDepthOK(toStr(text))) throw new SyntaxError("JSON nested too deeply (the limit is " + maxJSONDepth + " levels)");
    return apply(orig, this, arguments);
  } }).parse);

  // BigInt, Proxy, eval and the binary buffers are not on the global
  // object, and the function constructors throw (removals.js, run before
  // this in both profiles).
})
