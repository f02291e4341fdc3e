;; startrec: exponential recursion in the start section, which wazero runs
;; while instantiating, before _start.
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
  (func $init (call $f (i32.const 64)))
  (start $init)
  (func (export "_start"))
)
