// apply, Reflect.apply and Reflect.construct spread an array-like into arguments, allocating its length in one
// step. A length getter answering 1 to the guard and 5e6 to the builtin made an 80 MB list (2**40 would take the
// process down); an array-like whose length is a getter is refused, as for the array methods.
// expect: runtime_error
// worker expect: success
// worker why: the TypeError is the hardened guard's, which a lying length getter could fool; lean has no guard, and goja reads length once (1) and spreads one argument
let reads = 0;
const args = { get length() { return reads++ === 0 ? 1 : 5e6; } };
return [Math.max.apply(null, args), reads];
