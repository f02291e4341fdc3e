// A huge sparse array filled, then joined: both builtins ignore interrupts.
// expect: memory_limit
return new Array(2e7).fill(0).join(',');
