;; tablegrow: a table declared with 1 entry and no maximum, grown by 1024
;; entries at a time until table.grow fails (or past 2^20 entries); writes
;; {"size":N} (the table's final size) to stdout, exit 0.
;;
;; Used by the sandbox/wasm tests: tables are outside the memory limit, so
;; the sandbox caps their growth (65,536 entries for a table this small).
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (table $t 1 funcref)
  (data (i32.const 64) "{\22size\22:")  ;; {"size":  8 bytes
  (data (i32.const 80) "}\0a")            ;;          2 bytes

  (global $pos (mut i32) (i32.const 1024))

  ;; emit appends len bytes at src to the output.
  (func $emit (param $src i32) (param $len i32)
    (block $done
      (loop $copy
        (br_if $done (i32.eqz (local.get $len)))
        (i32.store8 (global.get $pos) (i32.load8_u (local.get $src)))
        (global.set $pos (i32.add (global.get $pos) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (local.set $len (i32.sub (local.get $len) (i32.const 1)))
        (br $copy))))

  ;; emit_u32 appends n in decimal (itoa): count the digits, then write them
  ;; from the last one backwards.
  (func $emit_u32 (param $n i32)
    (local $t i32)
    (local $p i32)
    (local.set $p (i32.add (global.get $pos) (i32.const 1)))
    (local.set $t (local.get $n))
    (block $counted
      (loop $count
        (br_if $counted (i32.lt_u (local.get $t) (i32.const 10)))
        (local.set $t (i32.div_u (local.get $t) (i32.const 10)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $count)))
    (global.set $pos (local.get $p))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p)
        (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (local.get $n))))

  (func (export "_start")
    (block $full
      (loop $grow
        (br_if $full (i32.gt_u (table.size $t) (i32.const 0x100000)))
        (br_if $full (i32.eq (table.grow $t (ref.null func) (i32.const 1024)) (i32.const -1)))
        (br $grow)))
    (call $emit (i32.const 64) (i32.const 8))
    (call $emit_u32 (table.size $t))
    (call $emit (i32.const 80) (i32.const 2))
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.sub (global.get $pos) (i32.const 1024)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
)
