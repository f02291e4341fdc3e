// padStart to a billion characters.
// expect: memory_limit
return ''.padStart(1e9, 'ab').length;
