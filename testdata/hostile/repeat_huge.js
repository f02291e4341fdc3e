// One builtin call that would build a gigabyte string.
// expect: memory_limit
'x'.repeat(2 ** 29);
