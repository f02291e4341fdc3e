// replaceAll with a long replacement on a string with many matches.
// expect: memory_limit
return "ab".repeat(1e5).replaceAll("a", "x".repeat(1e5)).length;
