// A builtin as its own toString: trim coerces this, which calls trim...
// expect: limit_exceeded
const o = {};
o.toString = String.prototype.trim;
return String.prototype.trim.call(o);
