// toLocaleString of many references to one long string: output far beyond input.
// expect: memory_limit
const big = "x".repeat(5e5);
return new Array(1e4).fill(big).toLocaleString().length;
