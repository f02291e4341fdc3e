// Tool arguments whose JSON is small but which take JSON.stringify hundreds of millions of
// steps: one object of 1,000 undefined members (omitted from the JSON) referenced 200,000 times.
// The sandbox's stringify checks at every value whether the run was ended.
// expect: timeout
// timeout: 500ms
const o = {};
for (let i = 0; i < 1000; i++) o["k" + i] = undefined;
await tools.add(new Array(200000).fill(o));
