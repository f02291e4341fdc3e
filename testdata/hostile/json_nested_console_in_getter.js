// A value nested 9,990 deep whose innermost getter runs console.log(root) again: each stringify counts its depth from its
// own root while the native recursion of the ones outside it stays on the Go stack. Unbounded, the stack
// overflowed (a fatal error of the whole process) after some twenty seconds; JSON.parse and JSON.stringify
// nested in each other are bounded (console.log renders what it cannot stringify, so the run goes on).
// expect: success
const root = [];
let cur = root;
for (let i = 0; i < 9990; i++) { const n = []; cur.push(n); cur = n; }
Object.defineProperty(cur, 0, { enumerable: true, get() { console.log(root); return 1; } });
console.log(root);
