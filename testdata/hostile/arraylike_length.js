// An array-like with a length of 2^32-1: indexOf walks it all, deaf to interrupts.
// expect: memory_limit
// worker expect: timeout
// worker timeout: 1s
// worker why: indexOf walks 2**32 - 1 indexes inside the builtin and allocates nothing, so only the deadline ends it: the run answers then and its worker, still in the builtin, is replaced
return Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1);
