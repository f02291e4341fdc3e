// apply, Reflect.apply and Reflect.construct spread an array-like into arguments, allocating its length in one
// step. A length getter answering 1 to a guard and 5e6 to the builtin made an 80 MB list (2**40 would take the
// process down); the guard now reads the length once, as the spec does, and hands the builtin the list it read.
// expect: success
let reads = 0;
const args = { get length() { return reads++ === 0 ? 1 : 5e6; } };
return [Math.max.apply(null, args), reads];
