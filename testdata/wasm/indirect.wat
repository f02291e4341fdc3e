;; indirect: exponential recursion through call_indirect (the callee comes
;; from a table, so nothing in the caller names it).
;;
;; Used by the sandbox/wasm deadline tests; the call must end with timeout.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (type $t (func (param i32)))
  (memory (export "memory") 1)
  (table 1 funcref)
  (elem (i32.const 0) $f)
  (func $f (type $t) (param $n i32)
    (if (local.get $n)
      (then
        (call_indirect (type $t) (i32.sub (local.get $n) (i32.const 1)) (i32.const 0))
        (call_indirect (type $t) (i32.sub (local.get $n) (i32.const 1)) (i32.const 0)))))
  (func (export "_start")
    (call_indirect (type $t) (i32.const 64) (i32.const 0)))
)
