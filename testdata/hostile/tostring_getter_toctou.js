// A toString that answers short first and long after: this is coerced once, so repeat works on what the guard checked.
// expect: success
let n = 0;
const o = { toString() { return n++ === 0 ? "a" : "a".repeat(1e6); } };
return String.prototype.repeat.call(o, 1e4).length;
