// Deeply nested arrays: JSON.stringify and String() would recurse natively for hours,
// deaf to interrupts. Guarded, the recursion passes through JavaScript at every level
// and the run ends on a budget (here memory, which the recursion eats first).
// expect: memory_limit
// timeout: 10s
// within: 5s
let a = [];
for (let i = 0; i < 2e5; i++) a = [a];
return JSON.stringify(a).length + String(a).length;
