;; clockrand: reads the realtime clock and 4 random bytes and writes
;; {"seconds":S,"random":R} to stdout, exit 0: S is the wall time in whole
;; seconds since 1970, R the random bytes as a little-endian u32.
;;
;; Used by the sandbox/wasm tests to check that a tool sees the host's real
;; time and random source, not wazero's deterministic stand-ins (a fixed
;; epoch, the same "random" bytes every run).
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "clock_time_get"
    (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get"
    (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))

  ;; Layout: 0 iovec, 8 nwritten, 16 time (u64), 24 random (u32),
  ;; 64.. strings, 1024.. the JSON being built.
  (memory (export "memory") 1)
  (data (i32.const 64) "{\22seconds\22:")  ;; {"seconds":  11 bytes
  (data (i32.const 80) ",\22random\22:")   ;; ,"random":   10 bytes
  (data (i32.const 96) "}\0a")             ;;             2 bytes

  (global $pos (mut i32) (i32.const 1024))

  (func $emit (param $src i32) (param $len i32)
    (block $done
      (loop $copy
        (br_if $done (i32.eqz (local.get $len)))
        (i32.store8 (global.get $pos) (i32.load8_u (local.get $src)))
        (global.set $pos (i32.add (global.get $pos) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (local.set $len (i32.sub (local.get $len) (i32.const 1)))
        (br $copy))))

  ;; emit_u64 appends n in decimal.
  (func $emit_u64 (param $n i64)
    (local $t i64)
    (local $p i32)
    (local.set $p (i32.add (global.get $pos) (i32.const 1)))
    (local.set $t (local.get $n))
    (block $counted
      (loop $count
        (br_if $counted (i64.lt_u (local.get $t) (i64.const 10)))
        (local.set $t (i64.div_u (local.get $t) (i64.const 10)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $count)))
    (global.set $pos (local.get $p))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i64.store8 (local.get $p)
        (i64.add (i64.const 48) (i64.rem_u (local.get $n) (i64.const 10))))
      (local.set $n (i64.div_u (local.get $n) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $n) (i64.const 0)))))

  (func (export "_start")
    ;; clock 0 = realtime, precision 1 ns
    (drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 16)))
    (drop (call $random_get (i32.const 24) (i32.const 4)))
    (call $emit (i32.const 64) (i32.const 11))
    (call $emit_u64 (i64.div_u (i64.load (i32.const 16)) (i64.const 1000000000)))
    (call $emit (i32.const 80) (i32.const 10))
    (call $emit_u64 (i64.extend_i32_u (i32.load (i32.const 24))))
    (call $emit (i32.const 96) (i32.const 2))
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.sub (global.get $pos) (i32.const 1024)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
)
