// A loop of tool calls past maxToolCalls; catching does not help.
// expect: limit_exceeded
for (;;) {
  try { await tools.add({ a: 1, b: 2 }); } catch (e) {}
}
