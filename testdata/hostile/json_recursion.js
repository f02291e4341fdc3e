// toJSON returning ever deeper objects: recursion inside the JSON builtin, stopped by the timeout.
// expect: timeout
// timeout: 500ms
const o = {};
o.toJSON = () => ({ a: o });
return JSON.stringify(o);
