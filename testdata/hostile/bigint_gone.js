// BigInt is gone: BigInt.asUintN(2**34, -1n) built gigabytes in one step.
// expect: runtime_error
return BigInt.asUintN(2 ** 34, BigInt(-1)).toString().length;
