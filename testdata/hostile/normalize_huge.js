// normalize can make 18 characters per character; refused on strings over the limit.
// expect: memory_limit
let s = "x";
while (s.length < 2e6) s += s;
return s.normalize("NFKD").length;
