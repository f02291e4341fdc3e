// normalize can make 18 characters per character; refused on strings over the limit.
// expect: memory_limit
// worker expect: success
// worker why: the memory_limit is the hardened size guard's (it refuses a this over the guard size); NFKD of 2 Mi x's is 2 Mi characters, well within the worker's limits
let s = "x";
while (s.length < 2e6) s += s;
return s.normalize("NFKD").length;
