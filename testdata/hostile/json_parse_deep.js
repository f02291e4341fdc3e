// Parsing deeply nested JSON text is refused before the native recursion starts.
// expect: runtime_error
return JSON.parse('['.repeat(500000) + ']'.repeat(500000));
