// Spreading a huge array-like into arguments: a catchable RangeError, uncaught here.
// expect: runtime_error
// worker expect: memory_limit
// worker why: the RangeError is the hardened guard's 65,536-argument cap; goja allocates the 10^8-argument list in one step, past the worker's memory limit, and the worker is replaced
return Math.max.apply(null, { length: 1e8 });
