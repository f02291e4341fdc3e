// A thrown value whose message getter runs out the time.
// expect: timeout
// timeout: 500ms
const e = new Error("x");
Object.defineProperty(e, "message", { get() { for (;;) {} } });
throw e;
