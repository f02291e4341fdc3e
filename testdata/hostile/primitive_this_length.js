// A number has no length of its own: an array method called on one reads the length Number.prototype has,
// which a script can make 2^53-1. In process the walk runs in arraylike.js, which the timeout stops (goja's
// builtin walked it in Go, deaf to the interrupt, and the run was abandoned, walking on); in a worker goja's
// builtin walks it, and the run answers at the deadline while its worker is replaced.
// expect: timeout
// timeout: 1s
Object.defineProperty(Number.prototype, "length", { value: 2 ** 53 - 1 });
return Array.prototype.includes.call(5, 1);
