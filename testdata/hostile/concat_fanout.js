// concat of one large array with itself many times: output far larger than input.
// expect: memory_limit
const a = new Array(3e5).fill(1);
return a.concat(a, a, a, a, a, a, a, a, a, a, a).length;
