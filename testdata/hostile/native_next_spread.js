// Spreading an iterator whose next is a native function goja runs as it is
// (Object, a constructor: called, it makes a new {} each time, whose done
// is undefined): the spread is one instruction of the language, and goja
// loops over next inside it in Go, where neither the interrupt nor a
// wrapper reaches. The loop never ends and grows the array without bound.
// In process the run is answered at its timeout but its goroutine goes on,
// allocating, until the process runs out of memory (see docs/security.md,
// "Iteration through a native next"); in a worker the run ends at its
// timeout and the worker, still inside the spread, is replaced.
// expect: timeout
// timeout: 1s
// memory: 512MiB
// runner: worker
const it = {[Symbol.iterator]() { return {next: Object}; }};
return [...it].length;
