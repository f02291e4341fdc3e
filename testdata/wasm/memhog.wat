;; memhog: grows memory by 16 pages (1 MiB) at a time, touching one byte in
;; every new page, until memory.grow returns -1; then writes "out of memory"
;; to stderr and traps (unreachable).
;;
;; Used by the sandbox/wasm tests to check that the host's memory limit
;; (its per-instance memory limit) stops the guest and that a trap is reported as a
;; failure. Note: without a host limit, a module with no declared maximum may
;; grow to 4 GiB, so always run it with a limit.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))

  ;; Layout: 0 iovec, 8 nwritten, 64.. message.
  (memory (export "memory") 1)
  (data (i32.const 64) "out of memory") ;; 13 bytes

  (func (export "_start")
    (local $old i32) ;; page count before the grow = index of the first new page
    (local $i i32)
    (block $oom
      (loop $grow
        (local.set $old (memory.grow (i32.const 16)))
        (br_if $oom (i32.eq (local.get $old) (i32.const -1)))
        ;; touch the first byte of each of the 16 new pages
        (local.set $i (i32.const 0))
        (loop $touch
          (i32.store8
            (i32.shl (i32.add (local.get $old) (local.get $i)) (i32.const 16))
            (i32.const 1))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $touch (i32.lt_u (local.get $i) (i32.const 16))))
        (br $grow)))
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 13))
    (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    unreachable)
)
