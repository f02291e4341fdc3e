// A spreadable array-like of length 2^32-1: concat would walk it natively.
// expect: memory_limit
// worker expect: timeout
// worker timeout: 1s
// worker why: concat walks 2**32 - 1 indexes of an empty array-like inside the builtin and allocates nothing, so only the deadline ends it: the run answers then and its worker is replaced
return [].concat({ length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true }).length;
