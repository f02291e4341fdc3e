// toJSON returning ever deeper objects: recursion inside the JSON builtin, ended by its nesting bound.
// expect: runtime_error
const o = {};
o.toJSON = () => ({ a: o });
return JSON.stringify(o);
