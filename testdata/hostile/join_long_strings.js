// A short array of long strings whose join is a hundred megabytes.
// expect: memory_limit
const s = 'x'.repeat(1e6);
return Array(100).fill(s).join('').length;
