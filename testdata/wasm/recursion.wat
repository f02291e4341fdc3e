;; recursion: _start runs f(64) where f(n) = f(n-1) + f(n-1): 2^64 calls and
;; not one loop, so without the sandbox's check points wazero never looks at
;; the deadline (it checks only at loop headers) and a GC freezes the host.
;;
;; Used by the sandbox/wasm deadline tests; the call must end with timeout.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func $f (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 1))
      (else
        (i32.add
          (call $f (i32.sub (local.get $n) (i32.const 1)))
          (call $f (i32.sub (local.get $n) (i32.const 1)))))))
  (func (export "_start")
    (drop (call $f (i32.const 64))))
)
