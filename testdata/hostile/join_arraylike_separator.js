// join of an array-like with a long separator: output length times separator.
// expect: memory_limit
return Array.prototype.join.call({ length: 1e5 }, "x".repeat(1e5)).length;
