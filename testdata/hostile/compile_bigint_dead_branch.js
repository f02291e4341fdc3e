// BigInt arithmetic in a dead branch is still folded by the compiler (18 s before the check).
// expect: syntax_error
if (false) { const x = 3n ** 100000000n }
return 1
