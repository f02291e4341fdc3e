// An array-like with a length of 2^32-1: indexOf walks it all, deaf to interrupts.
// expect: memory_limit
return Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1);
