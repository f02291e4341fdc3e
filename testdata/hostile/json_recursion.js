// toJSON returning ever deeper objects: recursion inside the JSON builtin, ended by its nesting bound.
// expect: runtime_error
// worker expect: timeout
// worker timeout: 1s
// worker why: without the hardened replacer's depth count nothing bounds the nesting toJSON makes but the worker's stack, which takes longer than the deadline to fill
const o = {};
o.toJSON = () => ({ a: o });
return JSON.stringify(o);
