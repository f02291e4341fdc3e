// A short array of long strings whose join is a hundred megabytes.
// expect: memory_limit
// worker expect: memory_limit or success
// worker why: the memory_limit is the hardened join's size check; in a worker the run's budget is the heap watchdog's, which reads the heap every few milliseconds: a join that builds 100 MB and drops it between two readings may finish (the worker's data limit, 512 MiB here, bounds it either way)
const s = 'x'.repeat(1e6);
return Array(100).fill(s).join('').length;
