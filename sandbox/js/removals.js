// The removals from the language that the sandbox makes on purpose, run in
// every fresh runtime of both profiles (Hardened and Lean) right after the
// global object is replaced (removedGlobals, global.go). docs/code-mode.md
// lists them with their reasons. Called once with the global object;
// nothing it captures is reachable from the script afterwards.
(function (g) {
  "use strict";
  const define = Object.defineProperty;
  const getProto = Object.getPrototypeOf;
  // No code from strings: eval is gone, and every function constructor
  // (reachable as fn.constructor) throws. Function stays a valid
  // right-hand side for instanceof.
  const blocked = function Function() {
    throw new TypeError("code generation from strings is not allowed in the sandbox");
  };
  define(blocked, "prototype", { value: Function.prototype, writable: false }); // as goja's Function.prototype
  for (const f of [function () {}, async function () {}, function* () {}]) { // goja has no async generators
    define(getProto(f), "constructor", { value: blocked, writable: false, enumerable: false, configurable: false });
  }
  define(g, "Function", { value: blocked, writable: false, enumerable: false, configurable: false });
})
