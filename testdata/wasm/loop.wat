;; loop: _start spins forever and never returns (no imports at all).
;;
;; Used by the sandbox/wasm tests to check that the host's timeout (context
;; deadline with WithCloseOnContextDone) interrupts a busy guest.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $forever
      (br $forever)))
)
