// String.raw over an array-like of a billion entries: one native step.
// expect: memory_limit
return String.raw({ raw: { length: 1e9 } });
