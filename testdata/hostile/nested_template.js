// Nested arrays through a template literal and + "".
// expect: limit_exceeded
let a = [];
for (let i = 0; i < 5e4; i++) a = [a];
return `${a}` + "";
