// Tool calls made from getters while the arguments are serialised count against the limit.
// expect: limit_exceeded
const arg = {};
for (let i = 0; i < 100; i++) {
  Object.defineProperty(arg, "k" + i, { enumerable: true, get() { tools.add({ a: 1, b: 2 }); return i; } });
}
await tools.add(arg);
