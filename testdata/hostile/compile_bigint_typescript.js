// TypeScript: esbuild would lower 1n to BigInt("1"); the literal is refused before it runs.
// expect: syntax_error
const big: bigint = 2n ** 4096n;
return Number(big)
