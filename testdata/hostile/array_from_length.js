// Array.from over a huge array-like allocates every element at once.
// expect: memory_limit
return Array.from({ length: 1e9 }).length;
