// A loop that never yields: the timeout interrupts it.
// expect: timeout
// timeout: 200ms
while (true) {}
