// Waiting on a promise nothing will ever settle ends at once, not at the timeout.
// expect: runtime_error
// within: 1s
await new Promise(() => {});
