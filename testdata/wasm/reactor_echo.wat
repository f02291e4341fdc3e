;; reactor_echo: the echo tool as a WASI *reactor*, for the pooled mode.
;;
;; Exports memory, _initialize (does nothing) and codemode_call:
;; (func (result i32)) that copies all of stdin to stdout in 32 KiB chunks
;; and returns 0 (1 if reading or writing failed). There is no _start, so
;; one instance serves many calls; the host swaps stdin/stdout per call.
;; A global counts the calls (exported read-only as "calls") -- it is never
;; written to any output; it only shows that instance reuse is harmless.
;;
;; Used by the sandbox/wasm tests of pooled instances: two calls with
;; different stdin on the same instance must each echo their own input.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))

  ;; Layout: 0 iovec for writes, 8 nwritten, 16 iovec for reads, 24 nread,
  ;; 32768..65535 the chunk buffer.
  (memory (export "memory") 1)

  (global $calls (mut i32) (i32.const 0))
  (export "calls" (global $calls))

  ;; write_all writes len bytes at ptr to fd, retrying short writes.
  ;; Returns 0 or the WASI errno.
  (func $write_all (param $fd i32) (param $ptr i32) (param $len i32) (result i32)
    (local $err i32)
    (local $n i32)
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $len)))
        (i32.store (i32.const 0) (local.get $ptr))
        (i32.store (i32.const 4) (local.get $len))
        (local.set $err
          (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))
        (if (local.get $err) (then (return (local.get $err))))
        (local.set $n (i32.load (i32.const 8)))
        (if (i32.eqz (local.get $n)) (then (return (i32.const 29)))) ;; EIO: no progress
        (local.set $ptr (i32.add (local.get $ptr) (local.get $n)))
        (local.set $len (i32.sub (local.get $len) (local.get $n)))
        (br $again)))
    (i32.const 0))

  (func (export "_initialize"))

  (func (export "codemode_call") (result i32)
    (local $n i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (loop $chunk
      (i32.store (i32.const 16) (i32.const 32768)) ;; buf
      (i32.store (i32.const 20) (i32.const 32768)) ;; buf_len
      (if (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24))
        (then (return (i32.const 1))))
      (local.set $n (i32.load (i32.const 24)))
      (if (local.get $n) ;; 0 bytes read = EOF
        (then
          (if (call $write_all (i32.const 1) (i32.const 32768) (local.get $n))
            (then (return (i32.const 1))))
          (br $chunk))))
    (i32.const 0))
)
