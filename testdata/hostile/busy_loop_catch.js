// A budget error cannot be caught: try/catch/finally around the loop does not save it.
// expect: timeout
// timeout: 200ms
for (;;) {
  try {
    while (true) {}
  } catch (e) {
    console.log("caught", e);
  } finally {
    continue;
  }
}
