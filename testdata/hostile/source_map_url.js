// The parser must not follow source-map comments to host files.
// expect: success
return 1;
//# sourceMappingURL=/dev/zero
//# sourceMappingURL=/etc/passwd
