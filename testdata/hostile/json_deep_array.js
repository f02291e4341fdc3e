// Deeply nested arrays: JSON.stringify and String() would recurse natively for hours,
// deaf to interrupts. Guarded, JSON.stringify refuses nesting past 10,000 levels with a
// RangeError (String() would end on the call-depth limit).
// expect: runtime_error
// memory: 256MiB
// worker expect: timeout
// worker timeout: 2s
// worker why: without the hardened replacer JSON.stringify recurses natively 200,000 deep, deaf to the interrupt, for longer than any test budget: the deadline ends the run and its worker is replaced
let a = [];
for (let i = 0; i < 2e5; i++) a = [a];
return JSON.stringify(a).length + String(a).length;
