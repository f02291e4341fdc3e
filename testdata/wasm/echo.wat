;; echo: copies all of stdin to stdout unchanged, then exits 0.
;;
;; A WASI preview1 command module (exports _start and memory). It reads stdin
;; in 32 KiB chunks and writes each chunk back before reading the next, so any
;; input size (e.g. 1 MiB of JSON arguments) works in a single page of memory.
;; Used by the sandbox/wasm tests for the happy path: the JSON arguments the
;; host writes to stdin come back as the tool's result, and large inputs work.
;; On a read/write error it writes a message to stderr and exits 1.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec for writes, 8 nwritten, 16 iovec for reads, 24 nread,
  ;; 64.. messages, 32768..65535 the chunk buffer.
  (memory (export "memory") 1)
  (data (i32.const 64) "echo: reading stdin failed")   ;; 26 bytes
  (data (i32.const 96) "echo: writing stdout failed")  ;; 27 bytes

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

  ;; fail writes msg to stderr and exits 1.
  (func $fail (param $msg i32) (param $len i32)
    (drop (call $write_all (i32.const 2) (local.get $msg) (local.get $len)))
    (call $proc_exit (i32.const 1))
    unreachable)

  (func (export "_start")
    (local $n i32)
    (loop $chunk
      (i32.store (i32.const 16) (i32.const 32768)) ;; buf
      (i32.store (i32.const 20) (i32.const 32768)) ;; buf_len
      (if (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24))
        (then (call $fail (i32.const 64) (i32.const 26))))
      (local.set $n (i32.load (i32.const 24)))
      (if (local.get $n) ;; 0 bytes read = EOF: return from _start = exit 0
        (then
          (if (call $write_all (i32.const 1) (i32.const 32768) (local.get $n))
            (then (call $fail (i32.const 96) (i32.const 27))))
          (br $chunk)))))
)
