// An object with neither a usable toString nor valueOf, coerced: goja formats
// the object's Go value into its TypeError with %v ("Could not convert %v to
// primitive"), every element in full: 400 references to one 4 MB string make
// a 1.6 GB message inside one fmt.Sprintf that no wrapper, guard or watchdog
// sees. In process nothing can stop it short of a fatal out-of-memory of
// the whole process (see docs/security.md); in a worker the data-segment
// limit ends the worker and the run ends with memory_limit.
// expect: memory_limit
// memory: 512MiB
// timeout: 1m
// runner: worker
const a = Array(400).fill("x".repeat(4e6));
a.toString = a.valueOf = null;
return +a;
