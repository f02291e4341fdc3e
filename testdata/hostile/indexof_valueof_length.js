// An array method on an array-like whose length is an object: valueOf answers 1 to the guard and 2**32 - 1 to
// indexOf, which then walks four billion indexes inside the builtin, where no interrupt reaches.
// expect: runtime_error
// worker expect: success
// worker why: the TypeError is the hardened guard's; goja's indexOf converts length once (1)
let reads = 0;
const o = { length: { valueOf() { return reads++ === 0 ? 1 : 2 ** 32 - 1; } } };
return Array.prototype.indexOf.call(o, 1);
