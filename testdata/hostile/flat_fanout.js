// flat over a thousand references to one array: fan-out, not input size.
// expect: memory_limit
const x = new Array(1e4).fill(0);
return new Array(1e4).fill(x).flat().length;
