// A length that is an object: its valueOf tells the guard 1 and the builtin 2**40, which apply spreads into an
// argument list allocated in one step (a fatal out-of-memory of the whole process). An array-like whose length
// is an object is refused, as one whose length is a getter.
// expect: runtime_error
// worker expect: success
// worker why: the TypeError is the hardened guard's; goja's apply converts length once (1)
let reads = 0;
const args = { length: { valueOf() { return reads++ === 0 ? 1 : 2 ** 40; } } };
return [Math.max.apply(null, args), reads];
