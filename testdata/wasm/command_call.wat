;; command_call: a WASI *command* that also exports codemode_call, the shape
;; of a Go tool built as a command (GOOS=wasip1 go build, no
;; -buildmode=c-shared) from a source with //go:wasmexport codemode_call.
;;
;; _start sets up the "runtime" (a global) and writes {} to stdout;
;; codemode_call, like Go's exports, traps when _start has not run: it
;; writes "runtime: wasmexport function called before runtime
;; initialization" to stderr and reaches unreachable.
;;
;; Used by the tests that refuse such a module for a pooled (pure) tool at
;; load, instead of crashing at every call.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))

  ;; Layout: 0 iovec, 8 nwritten, 64.. messages.
  (memory (export "memory") 1)
  (data (i32.const 64) "{}")
  (data (i32.const 80) "runtime: wasmexport function called before runtime initialization\n") ;; 66 bytes

  (global $initialized (mut i32) (i32.const 0))

  (func $write (param $fd i32) (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))))

  (func (export "_start")
    (global.set $initialized (i32.const 1))
    (call $write (i32.const 1) (i32.const 64) (i32.const 2)))

  (func (export "codemode_call") (result i32)
    (if (i32.eqz (global.get $initialized))
      (then
        (call $write (i32.const 2) (i32.const 80) (i32.const 66))
        unreachable))
    (call $write (i32.const 1) (i32.const 64) (i32.const 2))
    (i32.const 0))
)
