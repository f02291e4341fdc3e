;; spin: an endless loop that keeps writing to its 2 MiB of memory (more
;; than the sandbox keeps in the Go heap, so the memory is a mapping).
;;
;; Used by the sandbox/wasm tests to close a runtime while a module runs:
;; the module must be stopped before its memory is released.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 32)
  (func (export "_start")
    (local $i i32)
    (loop $forever
      (i32.store (i32.and (local.get $i) (i32.const 0x1ffffc)) (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $forever)))
)
