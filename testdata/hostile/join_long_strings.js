// A short array of long strings whose join is a terabyte.
// expect: memory_limit
const s = 'x'.repeat(1e6);
return Array(1e6).fill(s).join('').length;
