// A length that is an object: its valueOf answers 1 first and 2**40 after, which apply would spread into an
// argument list allocated in one step (a fatal out-of-memory of the whole process). It is converted once (1).
// expect: success
let reads = 0;
const args = { length: { valueOf() { return reads++ === 0 ? 1 : 2 ** 40; } } };
return [Math.max.apply(null, args), reads];
