// Growth in 16 MiB strings with the run's budget above the worker's own
// memory limit (RLIMIT_DATA, 512 MiB in the suite): the kernel refuses the
// worker more memory, the worker dies, and the run ends with memory_limit.
// In process nothing but the run's budget would stop it.
// expect: memory_limit
// memory: 4096MiB
// timeout: 1m
// runner: worker
const keep = [];
for (;;) keep.push('x'.repeat(1 << 24) + keep.length);
