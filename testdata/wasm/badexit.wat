;; badexit: writes "something went wrong: bad input" to stderr and calls
;; proc_exit(3). Writes nothing to stdout.
;;
;; Used by the sandbox/wasm tests to check that a non-zero exit status is a
;; tool failure whose message is the stderr text.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec, 8 nwritten, 64.. message.
  (memory (export "memory") 1)
  (data (i32.const 64) "something went wrong: bad input") ;; 31 bytes

  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 31))
    (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $proc_exit (i32.const 3)))
)
