// A spreadable array-like of length 2^32-1: concat would walk it natively.
// expect: memory_limit
return [].concat({ length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true }).length;
