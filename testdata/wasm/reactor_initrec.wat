;; reactor_initrec: a WASI reactor whose _initialize recurses exponentially
;; (no loops): the first pooled call makes the instance and runs it.
;;
;; Used by the sandbox/wasm deadline tests; the call must end with timeout.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func $f (param $n i32)
    (if (local.get $n)
      (then
        (call $f (i32.sub (local.get $n) (i32.const 1)))
        (call $f (i32.sub (local.get $n) (i32.const 1))))))
  (func (export "_initialize")
    (call $f (i32.const 64)))
  (func (export "codemode_call") (result i32)
    (i32.const 0))
)
