// A return value whose JSON text is over the sandbox's size limit: the guard
// inside JSON.stringify ends the run, and the run keeps the guard's code.
// expect: memory_limit
// memory: 64MiB
// worker expect: success
// worker why: the memory_limit is the hardened JSON.stringify's size check; a 2 MB result is within the worker's limits, and the engine cuts it to maxOutputChars
const s = "x".repeat(1 << 19);
const a = [];
for (let i = 0; i < 4; i++) a.push(s);
return a;
