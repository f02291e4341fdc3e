// Waiting on a promise nothing will ever settle ends at once, not at the timeout.
// expect: runtime_error
// within: 10s
await new Promise(() => {});
