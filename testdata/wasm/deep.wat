;; deep: linear recursion a billion calls deep, f(n) = f(n-1) + 1, so deep
;; that it runs out of wazero's call stack (which grows in host memory) and
;; traps.
;;
;; Used by the sandbox/wasm tests of stack depth: the call fails with
;; tool_error (stack overflow), and the test reports the host memory used.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func $f (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (call $f (i32.sub (local.get $n) (i32.const 1))) (i32.const 1)))))
  (func (export "_start")
    (drop (call $f (i32.const 1000000000))))
)
