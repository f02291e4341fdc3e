// Array.from over an array-like whose length getter changes between reads: read once (1), as the spec does.
// expect: success
let n = 0;
return Array.from({ get length() { return n++ === 0 ? 1 : 2 ** 32 - 1; } }).length;
