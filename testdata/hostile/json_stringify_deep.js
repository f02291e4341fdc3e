// JSON.stringify recursed natively through nesting deeper than JSON.parse accepts.
// expect: runtime_error
let a = [];
for (let i = 0; i < 2e4; i++) a = [a];
return JSON.stringify(a).length;
