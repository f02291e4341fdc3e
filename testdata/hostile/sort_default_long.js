// A default sort of a million numbers (compared as strings) runs natively for seconds:
// the sandbox's comparator lets the timeout stop it.
// expect: timeout
// timeout: 1s
const a = [];
for (let i = 0; i < 1e6; i++) a.push((i * 7919) % 1e6);
a.sort();
a.sort();
return a.length;
