;; reactor_exit: a reactor whose _initialize calls proc_exit(0), with 2 MiB of
;; memory (a mapping, in the sandbox). wazero reports that exit as success
;; and hands back a closed instance.
;;
;; Used by the sandbox/wasm tests: the pooled call must fail cleanly instead
;; of running codemode_call on the closed instance.
;;
;; Rebuild with scripts/build-wasm-fixtures.sh.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 32)
  (func (export "_initialize")
    (call $proc_exit (i32.const 0)))
  (func (export "codemode_call") (result i32)
    (i32.store (i32.const 1048576) (i32.const 1))
    (i32.const 0))
)
