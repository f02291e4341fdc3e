// A value nested 9,990 deep whose innermost getter runs JSON.stringify(root) again: each stringify counts its depth from its
// own root while the native recursion of the ones outside it stays on the Go stack. Unbounded, the stack
// overflowed (a fatal error of the whole process) after some twenty seconds; JSON.parse and JSON.stringify
// nested in each other are bounded.
// expect: runtime_error
// worker expect: timeout
// worker timeout: 2s
// worker why: without the hardened wrapper's nesting bound, stringifies nest until the worker's stack or memory runs out (27 s here): the deadline, which lands in the getter, comes first
const root = [];
let cur = root;
for (let i = 0; i < 9990; i++) { const n = []; cur.push(n); cur = n; }
Object.defineProperty(cur, 0, { enumerable: true, get() { JSON.stringify(root); return 1; } });
JSON.stringify(root);
