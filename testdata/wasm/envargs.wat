;; envargs: reports how many environment variables and arguments the host
;; passed, as {"env":N,"args":M} on stdout, exit 0. With the sandbox's
;; configuration (no env, argv = the tool name) that is {"env":0,"args":1}.
;;
;; Used by the sandbox/wasm tests to check that no environment leaks into a
;; tool and that argv is only the tool name.
;; On an error from either call it writes a message to stderr and exits 1.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "environ_sizes_get"
    (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get"
    (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec, 8 nwritten, 16 env count, 20 env buf size,
  ;; 24 arg count, 28 arg buf size, 64.. strings, 1024.. the JSON being built.
  (memory (export "memory") 1)
  (data (i32.const 64) "{\22env\22:")     ;; {"env":   7 bytes
  (data (i32.const 80) ",\22args\22:")    ;; ,"args":  8 bytes
  (data (i32.const 96) "}")               ;;           1 byte
  (data (i32.const 128) "envargs: environ_sizes_get or args_sizes_get failed") ;; 52 bytes

  (global $pos (mut i32) (i32.const 1024)) ;; end of the JSON being built

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

  (func (export "_start")
    (if (i32.or
          (call $environ_sizes_get (i32.const 16) (i32.const 20))
          (call $args_sizes_get (i32.const 24) (i32.const 28)))
      (then
        (drop (call $write_all (i32.const 2) (i32.const 128) (i32.const 52)))
        (call $proc_exit (i32.const 1))))
    (call $emit (i32.const 64) (i32.const 7))
    (call $emit_u32 (i32.load (i32.const 16)))
    (call $emit (i32.const 80) (i32.const 8))
    (call $emit_u32 (i32.load (i32.const 24)))
    (call $emit (i32.const 96) (i32.const 1))
    (if (call $write_all (i32.const 1) (i32.const 1024)
          (i32.sub (global.get $pos) (i32.const 1024)))
      (then (call $proc_exit (i32.const 1)))))
)
