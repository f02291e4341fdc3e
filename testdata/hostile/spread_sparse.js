// Spreading a sparse array of a million elements calls the iterator natively per element:
// the wrapped next stops it when the run ends.
// expect: timeout
// timeout: 300ms
const a = new Array(1e6);
for (;;) { const b = [...a]; }
