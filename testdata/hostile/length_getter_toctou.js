// A length getter that answers 1 first and 2^32-1 after: fill reads it once (1), and .length reads
// 2**32 - 1 after.
// expect: success
let n = 0;
const o = { get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } };
return Array.prototype.fill.call(o, 0).length;
