// A builtin getter as the getter of the flags it reads: recursion in Go.
// expect: limit_exceeded
const flags = Object.getOwnPropertyDescriptor(RegExp.prototype, "flags").get;
const o = {};
Object.defineProperty(o, "global", { get: flags });
return flags.call(o);
