// Array.from over an array-like whose length getter changes between reads.
// expect: runtime_error
let n = 0;
return Array.from({ get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } }).length;
