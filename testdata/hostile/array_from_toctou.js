// Array.from over an array-like whose length getter changes between reads.
// expect: runtime_error
// worker expect: success
// worker why: the TypeError is the hardened guard's; goja's Array.from reads length once (1)
let n = 0;
return Array.from({ get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } }).length;
