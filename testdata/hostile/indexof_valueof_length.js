// An array method on an array-like whose length is an object: valueOf answers 1 first and 2**32 - 1 after.
// A guard that read it before the builtin would have let the builtin walk four billion indexes, where no
// interrupt reaches; the length is converted once, as the spec does.
// expect: success
let reads = 0;
const o = { length: { valueOf() { return reads++ === 0 ? 1 : 2 ** 32 - 1; } } };
return Array.prototype.indexOf.call(o, 1);
