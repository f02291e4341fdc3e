// A thrown message of millions of characters: the error is cut, the run is not slowed.
// expect: runtime_error
throw new Error("x".repeat(4e5) + "y".repeat(4e5));
