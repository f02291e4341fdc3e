// A spreadable array-like of length 2^32-1: concat walks four billion indexes and allocates nothing. In process
// the walk is JavaScript (arraylike.js), which the timeout stops; in a worker goja's builtin walks it, and the
// run answers at the deadline while its worker is replaced.
// expect: timeout
// timeout: 1s
return [].concat({ length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true }).length;
