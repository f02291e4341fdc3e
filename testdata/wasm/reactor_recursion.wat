;; reactor_recursion: a WASI reactor whose codemode_call recurses
;; exponentially (no loops), for the pooled mode: _initialize returns at
;; once, the instance is made, and the call runs away.
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
  (func (export "_initialize"))
  (func (export "codemode_call") (result i32)
    (call $f (i32.const 64))
    (i32.const 0))
)
