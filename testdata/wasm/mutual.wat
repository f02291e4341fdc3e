;; mutual: exponential mutual recursion without loops: $a calls $b twice and
;; $b calls $a twice.
;;
;; Used by the sandbox/wasm deadline tests; the call must end with timeout.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func $a (param $n i32)
    (if (local.get $n)
      (then
        (call $b (i32.sub (local.get $n) (i32.const 1)))
        (call $b (i32.sub (local.get $n) (i32.const 1))))))
  (func $b (param $n i32)
    (if (local.get $n)
      (then
        (call $a (i32.sub (local.get $n) (i32.const 1)))
        (call $a (i32.sub (local.get $n) (i32.const 1))))))
  (func (export "_start")
    (call $a (i32.const 64)))
)
