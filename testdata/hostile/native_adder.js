// new Set(iterable) calls the new set's add once per step, natively, with the iterator's next: both can be native
// functions goja runs as they are (Set.prototype.add = Object, next: Object). Then no JavaScript and no wrapper
// runs between the steps, and the constructor loops in Go forever, deaf to the interrupt: in process the run is
// answered at its timeout but its goroutine spins on (the same for Map, WeakMap and WeakSet with their adders, and
// for Promise.all and its kin with a resolve and a then that are native). In a worker the run ends at its timeout
// and the worker, still in the loop, is replaced.
// expect: timeout
// timeout: 1s
// runner: worker
Set.prototype.add = Object;
return new Set({ [Symbol.iterator]() { return { next: Object }; } }).size;
