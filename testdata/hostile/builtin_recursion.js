// Recursion through a builtin: String() calls toString, which calls String().
// expect: limit_exceeded
const o = {};
o.toString = () => String(o);
return String(o);
