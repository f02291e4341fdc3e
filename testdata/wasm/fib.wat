;; fib: exports fib(n), the naive recursive Fibonacci: a call-heavy,
;; CPU-bound function with tiny bodies, the worst case for the check points
;; the sandbox adds after every call.
;;
;; Used by BenchmarkCheckpoints (sandbox/wasm), not as a tool.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1)))
                     (call $fib (i32.sub (local.get $n) (i32.const 2))))))))
