// A background loop that keeps calling tools after the script returned: nothing runs after the return.
// expect: success
(async () => {
  for (;;) await tools.add({ a: 1, b: 1 });
})();
return 'returned';
