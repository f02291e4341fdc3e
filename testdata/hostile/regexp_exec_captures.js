// A replace whose regular expression has an exec of the script's that answers a result of length 2^40: goja's
// replace allocates a list of the result's length in one step, which was Go's fatal out-of-memory and took the
// whole process down. In process the builtin is shown a length it can allocate (a string replacement reaches
// $99 at most) and the other captures are read in a loop the timeout stops.
// expect: timeout
// timeout: 1s
// worker expect: memory_limit
// worker why: the lean profile runs goja's replace as it is: its allocation fails in the worker, which is replaced
const re = /a/;
re.exec = function () { return { length: 2 ** 40, 0: "a", index: 0 }; };
return "a".replace(re, "x");
