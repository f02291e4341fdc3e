// Endless output: logs are cut at the budget and the run ends with output_limit.
// expect: output_limit
for (;;) console.log('spam '.repeat(20));
