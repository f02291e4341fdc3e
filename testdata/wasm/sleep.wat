;; sleep: sleeps 10 s with poll_oneoff (one relative CLOCK_MONOTONIC
;; subscription of 10_000_000_000 ns), then writes {"slept":true} to stdout
;; and exits 0. If poll_oneoff (or the event) reports an error it writes a
;; message to stderr and exits 1.
;;
;; Used by the sandbox/wasm tests to check that the host's timeout interrupts
;; a guest blocked in a host call (the host needs a real, interruptible
;; nanosleep for this; wazero's default one returns at once).
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "poll_oneoff"
    (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec, 8 nwritten, 16 nevents, 64 the subscription (48 bytes),
  ;; 128 the event (32 bytes), 256.. strings.
  ;; subscription: u64 userdata @0, u8 tag @8 (0 = clock), clock @16:
  ;;   u32 id @16 (1 = monotonic), u64 timeout @24, u64 precision @32,
  ;;   u16 flags @40 (0 = relative)
  ;; event: u64 userdata @0, u16 error @8, u8 type @10
  (memory (export "memory") 1)
  (data (i32.const 256) "{\22slept\22:true}")           ;; 14 bytes
  (data (i32.const 288) "sleep: poll_oneoff failed")  ;; 25 bytes

  ;; write writes len bytes at ptr to fd (one fd_write), returns the errno.
  (func $write (param $fd i32) (param $ptr i32) (param $len i32) (result i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))

  (func (export "_start")
    (i64.store (i32.const 64) (i64.const 1))                ;; userdata
    (i32.store8 (i32.const 72) (i32.const 0))               ;; tag: clock
    (i32.store (i32.const 80) (i32.const 1))                ;; CLOCK_MONOTONIC
    (i64.store (i32.const 88) (i64.const 10000000000))      ;; 10 s
    (i64.store (i32.const 96) (i64.const 0))                ;; precision
    (i32.store16 (i32.const 104) (i32.const 0))             ;; relative
    (if (i32.or
          (call $poll_oneoff (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 16))
          (i32.load16_u (i32.const 136)))                  ;; event error
      (then
        (drop (call $write (i32.const 2) (i32.const 288) (i32.const 25)))
        (call $proc_exit (i32.const 1))))
    (if (call $write (i32.const 1) (i32.const 256) (i32.const 14))
      (then (call $proc_exit (i32.const 1)))))
)
