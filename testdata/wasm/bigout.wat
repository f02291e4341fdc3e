;; bigout: writes the start of a JSON string that never ends: one '"', then
;; a 64 KiB buffer of 'x' over and over, forever. Write errors are ignored,
;; so it only stops when the host kills it (cancels its context).
;;
;; Used by the sandbox/wasm tests to check the host's stdout cap: the host
;; must stop reading at the cap and kill the guest, and report the result as
;; too large rather than hang or buffer without bound.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec, 8 nwritten, 64 the quote; page 1 (grown at start) is
  ;; the 64 KiB buffer of 'x'.
  (memory (export "memory") 1)
  (data (i32.const 64) "\22") ;; "

  ;; write_once writes len bytes at ptr to stdout, ignoring the result.
  (func $write_once (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (func (export "_start")
    (local $p i32)
    (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1))
      (then (call $proc_exit (i32.const 1))))
    ;; fill page 1 (65536..131071) with 'x'
    (local.set $p (i32.const 65536))
    (loop $fill
      (i32.store8 (local.get $p) (i32.const 0x78))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $p) (i32.const 131072))))
    (call $write_once (i32.const 64) (i32.const 1))
    (loop $forever
      (call $write_once (i32.const 65536) (i32.const 65536))
      (br $forever)))
)
