// A comparator that empties the array while goja sorts it: goja indexes out of range;
// the run ends with a clean runtime_error and the host lives on.
// expect: runtime_error
const a = Array.from({ length: 200 }, (_, i) => 200 - i);
try { a.sort((x, y) => { a.length = 0; return x - y; }); } catch (e) { return "threw " + e.name; }
return "sorted";
