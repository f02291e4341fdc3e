// A constant BigInt shift folded while compiling would end the process out of memory.
// expect: syntax_error
return (1n << 1000000000000n) > 0n
