// A long bind chain called once: goja called bound targets in Go, recursively.
// expect: limit_exceeded
// worker expect: memory_limit
// worker why: goja's bound functions are named "bound bound … f", quadratic in the chain: 10,000 binds hold about 300 MB of names, past the run's 64 MiB, and the heap watchdog ends the run (the hardened bind ends the run first, past maxCallDepth levels; with a larger budget goja calls the chain and returns 1)
let f = () => 1;
for (let i = 0; i < 1e4; i++) f = f.bind(null);
return f();
