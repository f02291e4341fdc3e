// Step-by-step growth: the heap watchdog ends it near the budget.
// expect: memory_limit
// memory: 64MiB
const keep = [];
for (let i = 0; ; i++) keep.push({ i, s: 'x'.repeat(1000) + i });
