;; openfile: tries to open a host file and reports the WASI errnos as JSON.
;;
;;   1. path_open(dirfd 3, "/etc/passwd")  -- absolute path via the first preopen
;;   2. path_open(dirfd 3, "etc/passwd")   -- relative path via the first preopen
;;   3. fd_prestat_get(3)                   -- is there a preopen at all?
;;   4. path_open(dirfd 3, "etc/new", O_CREAT, FD_WRITE) -- create a file
;;   5. path_open(dirfd 3, "../passwd")      -- escape the preopen
;;
;; and writes {"errno":E,"abs":A,"rel":R,"prestat":P,"create":C,"escape":X}
;; to stdout, exit 0. A, R, P, C, X are the errnos of the calls (0 = success). E is 0 if either
;; path_open succeeded, otherwise R -- so E != 0 means nothing could be opened.
;; With no filesystem granted, wazero answers EBADF (8) for fd 3 and EPERM
;; (63) for the absolute path, which it rejects before looking at the fd:
;; {"errno":8,"abs":63,"rel":8,"prestat":8}.
;;
;; Used by the sandbox/wasm tests to check that a tool has no filesystem
;; access unless the host grants it, and that a granted directory is
;; read-only and cannot be left.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get"
    (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit"
    (func $proc_exit (param i32)))

  ;; Layout: 0 iovec, 8 nwritten, 16 opened fd, 24 prestat (8 bytes),
  ;; 64.. strings, 1024.. the JSON being built.
  (memory (export "memory") 1)
  (data (i32.const 64) "/etc/passwd")   ;; 11 bytes; "etc/passwd" is 65, 10 bytes
  (data (i32.const 96) "{\22errno\22:")   ;; {"errno":    9 bytes
  (data (i32.const 112) ",\22abs\22:")    ;; ,"abs":      7 bytes
  (data (i32.const 128) ",\22rel\22:")    ;; ,"rel":      7 bytes
  (data (i32.const 144) ",\22prestat\22:");; ,"prestat":  11 bytes
  (data (i32.const 160) "}")              ;;             1 byte
  (data (i32.const 176) "etc/new")        ;;             7 bytes
  (data (i32.const 192) "../passwd")      ;;             9 bytes
  (data (i32.const 208) ",\22create\22:") ;; ,"create":  10 bytes
  (data (i32.const 224) ",\22escape\22:") ;; ,"escape":  10 bytes

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
    (local $abs i32)
    (local $rel i32)
    (local $prestat i32)
    (local $create i32)
    (local $escape i32)
    ;; path_open(fd, dirflags=SYMLINK_FOLLOW, path, path_len, oflags=0,
    ;;           rights_base=FD_READ, rights_inheriting=0, fdflags=0, &fd_out)
    (local.set $abs (call $path_open (i32.const 3) (i32.const 1)
      (i32.const 64) (i32.const 11) (i32.const 0)
      (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))
    (local.set $rel (call $path_open (i32.const 3) (i32.const 1)
      (i32.const 65) (i32.const 10) (i32.const 0)
      (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))
    (local.set $prestat (call $fd_prestat_get (i32.const 3) (i32.const 24)))
    ;; oflags=O_CREAT (1), rights_base=FD_WRITE (64)
    (local.set $create (call $path_open (i32.const 3) (i32.const 1)
      (i32.const 176) (i32.const 7) (i32.const 1)
      (i64.const 64) (i64.const 0) (i32.const 0) (i32.const 16)))
    (local.set $escape (call $path_open (i32.const 3) (i32.const 1)
      (i32.const 192) (i32.const 9) (i32.const 0)
      (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))

    (call $emit (i32.const 96) (i32.const 9))
    (call $emit_u32
      (select (i32.const 0) (local.get $rel)
        (i32.or (i32.eqz (local.get $abs)) (i32.eqz (local.get $rel)))))
    (call $emit (i32.const 112) (i32.const 7))
    (call $emit_u32 (local.get $abs))
    (call $emit (i32.const 128) (i32.const 7))
    (call $emit_u32 (local.get $rel))
    (call $emit (i32.const 144) (i32.const 11))
    (call $emit_u32 (local.get $prestat))
    (call $emit (i32.const 208) (i32.const 10))
    (call $emit_u32 (local.get $create))
    (call $emit (i32.const 224) (i32.const 10))
    (call $emit_u32 (local.get $escape))
    (call $emit (i32.const 160) (i32.const 1))
    (if (call $write_all (i32.const 1) (i32.const 1024)
          (i32.sub (global.get $pos) (i32.const 1024)))
      (then (call $proc_exit (i32.const 1)))))
)
