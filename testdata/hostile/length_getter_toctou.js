// A length getter that tells the guard 1 and the builtin 2^32-1.
// expect: runtime_error
let n = 0;
const o = { get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } };
return Array.prototype.fill.call(o, 0).length;
