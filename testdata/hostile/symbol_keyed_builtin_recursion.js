// A builtin keyed by a well-known symbol as its own exec: replace on a
// non-RegExp calls this.exec, which is replace again... recursion in Go. The
// sandbox finds these builtins by goja's symbols (goja.SymReplace), as its
// generated table names them.
// expect: limit_exceeded
const replace = RegExp.prototype[Symbol.replace];
const o = { exec: replace };
return replace.call(o, "abc", "x");
