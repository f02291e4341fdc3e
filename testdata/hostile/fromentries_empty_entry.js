// Object.fromEntries with an entry that has no "0": goja reads the key as nil and dereferences it, which ended the
// run as an engine failure. In process Object.fromEntries runs in arraylike.js, which reads the key as undefined,
// as the language does.
// expect: success
// timeout: 5s
// worker expect: runtime_error
// worker why: the lean profile runs goja's Object.fromEntries as it is; its engine failure ends the run cleanly
return Object.keys(Object.fromEntries([{}])).join();
