// Parsing deeply nested JSON text is refused before the native recursion starts.
// expect: runtime_error
// worker expect: memory_limit
// worker why: the hardened JSON.parse refuses the nesting before it parses; goja's parser builds 500,000 levels in Go, past the worker's memory limit, and the worker is replaced
return JSON.parse('['.repeat(500000) + ']'.repeat(500000));
