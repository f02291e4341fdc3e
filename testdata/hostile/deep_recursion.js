// Unbounded recursion in script code.
// expect: limit_exceeded
function down(n) { return down(n + 1) + 1; }
return down(0);
