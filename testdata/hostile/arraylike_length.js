// An array-like with a length of 2^32-1: indexOf walks it all. In process the walk is JavaScript
// (arraylike.js), which the timeout stops; in a worker goja's builtin walks it, and the run answers at the
// deadline while its worker is replaced.
// expect: timeout
// timeout: 1s
return Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1);
