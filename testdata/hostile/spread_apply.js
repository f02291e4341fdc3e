// Spreading a huge array-like into arguments: a catchable RangeError, uncaught here.
// expect: runtime_error
return Math.max.apply(null, { length: 1e8 });
