// $' inserts the rest of the string at every match: quadratic output.
// expect: memory_limit
return 'a'.repeat(1e5).replace(/a/g, "$'$'").length;
