// A length getter that tells the guard 1 and the builtin 2^32-1.
// expect: runtime_error
// worker expect: success
// worker why: the TypeError is the hardened guard's; goja's fill reads length once (1), and .length reads 2**32 - 1 after
let n = 0;
const o = { get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } };
return Array.prototype.fill.call(o, 0).length;
